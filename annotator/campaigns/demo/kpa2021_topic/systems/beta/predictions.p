{
 "arg_4_0": {
  "beta_con_0": 0.2643,
  "beta_con_1": 0.4645,
  "beta_con_2": 0.9963,
  "beta_con_3": 0.1403,
  "beta_con_4": 0.8776
 },
 "arg_4_1": {
  "beta_con_0": 0.3673,
  "beta_con_1": 0.7401,
  "beta_con_2": 0.1255,
  "beta_con_3": 0.1601,
  "beta_con_4": 0.3985
 },
 "arg_4_2": {
  "beta_con_0": 0.0023,
  "beta_con_1": 0.8349,
  "beta_con_2": 0.5448,
  "beta_con_3": 0.0609,
  "beta_con_4": 0.8569
 },
 "arg_4_3": {
  "beta_con_0": 0.9233,
  "beta_con_1": 0.0302,
  "beta_con_2": 0.2765,
  "beta_con_3": 0.1068,
  "beta_con_4": 0.1575
 },
 "arg_4_4": {
  "beta_con_0": 0.0322,
  "beta_con_1": 0.7,
  "beta_con_2": 0.6093,
  "beta_con_3": 0.8795,
  "beta_con_4": 0.2631
 },
 "arg_4_5": {
  "beta_con_0": 0.1109,
  "beta_con_1": 0.3391,
  "beta_con_2": 0.924,
  "beta_con_3": 0.7665,
  "beta_con_4": 0.9807
 },
 "arg_4_6": {
  "beta_con_0": 0.6403,
  "beta_con_1": 0.6857,
  "beta_con_2": 0.2201,
  "beta_con_3": 0.8251,
  "beta_con_4": 0.4537
 },
 "arg_4_7": {
  "beta_con_0": 0.1711,
  "beta_con_1": 0.382,
  "beta_con_2": 0.1251,
  "beta_con_3": 0.4408,
  "beta_con_4": 0.9578
 },
 "arg_4_8": {
  "beta_con_0": 0.1811,
  "beta_con_1": 0.2929,
  "beta_con_2": 0.6953,
  "beta_con_3": 0.5957,
  "beta_con_4": 0.8786
 },
 "arg_4_9": {
  "beta_con_0": 0.1413,
  "beta_con_1": 0.6728,
  "beta_con_2": 0.1065,
  "beta_con_3": 0.8298,
  "beta_con_4": 0.1167
 },
 "arg_4_121": {
  "beta_pro_0": 0.045,
  "beta_pro_1": 0.6158,
  "beta_pro_2": 0.3554,
  "beta_pro_3": 0.5379,
  "beta_pro_4": 0.7161
 },
 "arg_4_122": {
  "beta_pro_0": 0.007,
  "beta_pro_1": 0.4783,
  "beta_pro_2": 0.9361,
  "beta_pro_3": 0.0589,
  "beta_pro_4": 0.2919
 },
 "arg_4_123": {
  "beta_pro_0": 0.759,
  "beta_pro_1": 0.6583,
  "beta_pro_2": 0.9413,
  "beta_pro_3": 0.9656,
  "beta_pro_4": 0.5875
 },
 "arg_4_124": {
  "beta_pro_0": 0.9393,
  "beta_pro_1": 0.6848,
  "beta_pro_2": 0.5077,
  "beta_pro_3": 0.8214,
  "beta_pro_4": 0.4194
 },
 "arg_4_125": {
  "beta_pro_0": 0.9691,
  "beta_pro_1": 0.6018,
  "beta_pro_2": 0.4868,
  "beta_pro_3": 0.5783,
  "beta_pro_4": 0.8401
 },
 "arg_4_126": {
  "beta_pro_0": 0.4851,
  "beta_pro_1": 0.0972,
  "beta_pro_2": 0.7929,
  "beta_pro_3": 0.0532,
  "beta_pro_4": 0.6025
 },
 "arg_4_127": {
  "beta_pro_0": 0.0443,
  "beta_pro_1": 0.8767,
  "beta_pro_2": 0.5372,
  "beta_pro_3": 0.7381,
  "beta_pro_4": 0.1565
 },
 "arg_4_128": {
  "beta_pro_0": 0.4001,
  "beta_pro_1": 0.3376,
  "beta_pro_2": 0.0451,
  "beta_pro_3": 0.076,
  "beta_pro_4": 0.9316
 },
 "arg_4_129": {
  "beta_pro_0": 0.0048,
  "beta_pro_1": 0.0562,
  "beta_pro_2": 0.0077,
  "beta_pro_3": 0.9136,
  "beta_pro_4": 0.2856
 },
 "arg_4_130": {
  "beta_pro_0": 0.9618,
  "beta_pro_1": 0.1148,
  "beta_pro_2": 0.1056,
  "beta_pro_3": 0.7991,
  "beta_pro_4": 0.7594
 }
}
