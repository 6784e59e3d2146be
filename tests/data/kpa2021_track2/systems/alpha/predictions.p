{
 "arg_1_0": {
  "alpha_con_0": 0.0311,
  "alpha_con_1": 0.7475,
  "alpha_con_2": 0.7785,
  "alpha_con_3": 0.2824,
  "alpha_con_4": 0.9065
 },
 "arg_1_1": {
  "alpha_con_0": 0.7709,
  "alpha_con_1": 0.8589,
  "alpha_con_2": 0.8499,
  "alpha_con_3": 0.2033,
  "alpha_con_4": 0.4582
 },
 "arg_1_2": {
  "alpha_con_0": 0.3528,
  "alpha_con_1": 0.4495,
  "alpha_con_2": 0.8994,
  "alpha_con_3": 0.0114,
  "alpha_con_4": 0.8335
 },
 "arg_1_3": {
  "alpha_con_0": 0.9184,
  "alpha_con_1": 0.7762,
  "alpha_con_2": 0.9486,
  "alpha_con_3": 0.2096,
  "alpha_con_4": 0.3358
 },
 "arg_1_4": {
  "alpha_con_0": 0.5126,
  "alpha_con_1": 0.1491,
  "alpha_con_2": 0.9111,
  "alpha_con_3": 0.7284,
  "alpha_con_4": 0.9724
 },
 "arg_1_5": {
  "alpha_con_0": 0.6509,
  "alpha_con_1": 0.1185,
  "alpha_con_2": 0.3438,
  "alpha_con_3": 0.6725,
  "alpha_con_4": 0.8327
 },
 "arg_1_8": {
  "alpha_con_0": 0.2013,
  "alpha_con_1": 0.3697,
  "alpha_con_2": 0.5074,
  "alpha_con_3": 0.5639,
  "alpha_con_4": 0.7564
 },
 "arg_1_13": {
  "alpha_con_0": 0.302,
  "alpha_con_1": 0.9095,
  "alpha_con_2": 0.1977,
  "alpha_con_3": 0.8905,
  "alpha_con_4": 0.6719
 },
 "arg_1_15": {
  "alpha_con_0": 0.6133,
  "alpha_con_1": 0.657,
  "alpha_con_2": 0.811,
  "alpha_con_3": 0.843,
  "alpha_con_4": 0.3471
 },
 "arg_1_19": {
  "alpha_con_0": 0.7259,
  "alpha_con_1": 0.2244,
  "alpha_con_2": 0.8541,
  "alpha_con_3": 0.9976,
  "alpha_con_4": 0.9639
 },
 "arg_1_21": {
  "alpha_con_0": 0.8899,
  "alpha_con_1": 0.4713,
  "alpha_con_2": 0.934,
  "alpha_con_3": 0.763,
  "alpha_con_4": 0.2211
 },
 "arg_1_26": {
  "alpha_con_0": 0.7578,
  "alpha_con_1": 0.1888,
  "alpha_con_2": 0.7303,
  "alpha_con_3": 0.8764,
  "alpha_con_4": 0.9709
 },
 "arg_1_35": {
  "alpha_con_0": 0.8068,
  "alpha_con_1": 0.8527,
  "alpha_con_2": 0.0043,
  "alpha_con_3": 0.6997,
  "alpha_con_4": 0.6889
 },
 "arg_1_56": {
  "alpha_con_0": 0.9601,
  "alpha_con_1": 0.7508,
  "alpha_con_2": 0.875,
  "alpha_con_3": 0.8844,
  "alpha_con_4": 0.4226
 },
 "arg_1_99": {
  "alpha_pro_0": 0.7433,
  "alpha_pro_1": 0.9962,
  "alpha_pro_2": 0.3116,
  "alpha_pro_3": 0.1779,
  "alpha_pro_4": 0.9816
 },
 "arg_1_100": {
  "alpha_pro_0": 0.9671,
  "alpha_pro_1": 0.7855,
  "alpha_pro_2": 0.8668,
  "alpha_pro_3": 0.6019,
  "alpha_pro_4": 0.6363
 },
 "arg_1_102": {
  "alpha_pro_0": 0.6553,
  "alpha_pro_1": 0.9084,
  "alpha_pro_2": 0.1451,
  "alpha_pro_3": 0.5982,
  "alpha_pro_4": 0.6373
 },
 "arg_1_103": {
  "alpha_pro_0": 0.0288,
  "alpha_pro_1": 0.8518,
  "alpha_pro_2": 0.2513,
  "alpha_pro_3": 0.959,
  "alpha_pro_4": 0.6911
 },
 "arg_1_104": {
  "alpha_pro_0": 0.2171,
  "alpha_pro_1": 0.9051,
  "alpha_pro_2": 0.732,
  "alpha_pro_3": 0.698,
  "alpha_pro_4": 0.9831
 },
 "arg_1_106": {
  "alpha_pro_0": 0.9631,
  "alpha_pro_1": 0.5484,
  "alpha_pro_2": 0.8881,
  "alpha_pro_3": 0.419,
  "alpha_pro_4": 0.4932
 },
 "arg_1_110": {
  "alpha_pro_0": 0.57,
  "alpha_pro_1": 0.7724,
  "alpha_pro_2": 0.9721,
  "alpha_pro_3": 0.6303,
  "alpha_pro_4": 0.0029
 },
 "arg_1_113": {
  "alpha_pro_0": 0.3278,
  "alpha_pro_1": 0.9332,
  "alpha_pro_2": 0.4987,
  "alpha_pro_3": 0.3086,
  "alpha_pro_4": 0.7462
 },
 "arg_1_120": {
  "alpha_pro_0": 0.9561,
  "alpha_pro_1": 0.2581,
  "alpha_pro_2": 0.8999,
  "alpha_pro_3": 0.6091,
  "alpha_pro_4": 0.918
 },
 "arg_1_125": {
  "alpha_pro_0": 0.7299,
  "alpha_pro_1": 0.4799,
  "alpha_pro_2": 0.8228,
  "alpha_pro_3": 0.712,
  "alpha_pro_4": 0.4565
 },
 "arg_1_131": {
  "alpha_pro_0": 0.0622,
  "alpha_pro_1": 0.4831,
  "alpha_pro_2": 0.4594,
  "alpha_pro_3": 0.9011,
  "alpha_pro_4": 0.8911
 },
 "arg_1_188": {
  "alpha_pro_0": 0.2253,
  "alpha_pro_1": 0.1085,
  "alpha_pro_2": 0.4124,
  "alpha_pro_3": 0.2144,
  "alpha_pro_4": 0.2117
 }
}
