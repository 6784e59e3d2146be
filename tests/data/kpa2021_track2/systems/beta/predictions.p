{
 "arg_1_0": {
  "beta_con_0": 0.2643,
  "beta_con_1": 0.4645,
  "beta_con_2": 0.9963
 },
 "arg_1_1": {
  "beta_con_0": 0.1403,
  "beta_con_1": 0.8776,
  "beta_con_2": 0.3673
 },
 "arg_1_2": {
  "beta_con_0": 0.7401,
  "beta_con_1": 0.1255,
  "beta_con_2": 0.1601
 },
 "arg_1_3": {
  "beta_con_0": 0.3985,
  "beta_con_1": 0.0023,
  "beta_con_2": 0.8349
 },
 "arg_1_4": {
  "beta_con_0": 0.5448,
  "beta_con_1": 0.0609,
  "beta_con_2": 0.8569
 },
 "arg_1_5": {
  "beta_con_0": 0.9233,
  "beta_con_1": 0.0302,
  "beta_con_2": 0.2765
 },
 "arg_1_8": {
  "beta_con_0": 0.1068,
  "beta_con_1": 0.1575,
  "beta_con_2": 0.0322
 },
 "arg_1_13": {
  "beta_con_0": 0.7,
  "beta_con_1": 0.6093,
  "beta_con_2": 0.8795
 },
 "arg_1_15": {
  "beta_con_0": 0.2631,
  "beta_con_1": 0.1109,
  "beta_con_2": 0.3391
 },
 "arg_1_19": {
  "beta_con_0": 0.924,
  "beta_con_1": 0.7665,
  "beta_con_2": 0.9807
 },
 "arg_1_21": {
  "beta_con_0": 0.6403,
  "beta_con_1": 0.6857,
  "beta_con_2": 0.2201
 },
 "arg_1_26": {
  "beta_con_0": 0.8251,
  "beta_con_1": 0.4537,
  "beta_con_2": 0.1711
 },
 "arg_1_35": {
  "beta_con_0": 0.382,
  "beta_con_1": 0.1251,
  "beta_con_2": 0.4408
 },
 "arg_1_56": {
  "beta_con_0": 0.9578,
  "beta_con_1": 0.1811,
  "beta_con_2": 0.2929
 },
 "arg_1_99": {
  "beta_pro_0": 0.6953,
  "beta_pro_1": 0.5957,
  "beta_pro_2": 0.8786
 },
 "arg_1_100": {
  "beta_pro_0": 0.1413,
  "beta_pro_1": 0.6728,
  "beta_pro_2": 0.1065
 },
 "arg_1_102": {
  "beta_pro_0": 0.8298,
  "beta_pro_1": 0.1167,
  "beta_pro_2": 0.045
 },
 "arg_1_103": {
  "beta_pro_0": 0.6158,
  "beta_pro_1": 0.3554,
  "beta_pro_2": 0.5379
 },
 "arg_1_104": {
  "beta_pro_0": 0.7161,
  "beta_pro_1": 0.007,
  "beta_pro_2": 0.4783
 },
 "arg_1_106": {
  "beta_pro_0": 0.9361,
  "beta_pro_1": 0.0589,
  "beta_pro_2": 0.2919
 },
 "arg_1_110": {
  "beta_pro_0": 0.759,
  "beta_pro_1": 0.6583,
  "beta_pro_2": 0.9413
 },
 "arg_1_113": {
  "beta_pro_0": 0.9656,
  "beta_pro_1": 0.5875,
  "beta_pro_2": 0.9393
 },
 "arg_1_120": {
  "beta_pro_0": 0.6848,
  "beta_pro_1": 0.5077,
  "beta_pro_2": 0.8214
 },
 "arg_1_125": {
  "beta_pro_0": 0.4194,
  "beta_pro_1": 0.9691,
  "beta_pro_2": 0.6018
 },
 "arg_1_131": {
  "beta_pro_0": 0.4868,
  "beta_pro_1": 0.5783,
  "beta_pro_2": 0.8401
 },
 "arg_1_188": {
  "beta_pro_0": 0.4851,
  "beta_pro_1": 0.0972,
  "beta_pro_2": 0.7929
 }
}
