{
 "arg_4_0": {
  "alpha_con_0": 0.8062,
  "alpha_con_1": 0.7475,
  "alpha_con_2": 0.7785,
  "alpha_con_3": 0.2824,
  "alpha_con_4": 0.9065
 },
 "arg_4_1": {
  "alpha_con_0": 0.7709,
  "alpha_con_1": 0.8589,
  "alpha_con_2": 0.8499,
  "alpha_con_3": 0.2033,
  "alpha_con_4": 0.4582
 },
 "arg_4_2": {
  "alpha_con_0": 0.3528,
  "alpha_con_1": 0.4495,
  "alpha_con_2": 0.8994,
  "alpha_con_3": 0.0114,
  "alpha_con_4": 0.8335
 },
 "arg_4_3": {
  "alpha_con_0": 0.9184,
  "alpha_con_1": 0.7762,
  "alpha_con_2": 0.9486,
  "alpha_con_3": 0.2096,
  "alpha_con_4": 0.3358
 },
 "arg_4_4": {
  "alpha_con_0": 0.5126,
  "alpha_con_1": 0.8298,
  "alpha_con_2": 0.5557,
  "alpha_con_3": 0.7284,
  "alpha_con_4": 0.9724
 },
 "arg_4_5": {
  "alpha_con_0": 0.6509,
  "alpha_con_1": 0.1185,
  "alpha_con_2": 0.3438,
  "alpha_con_3": 0.9345,
  "alpha_con_4": 0.1637
 },
 "arg_4_6": {
  "alpha_con_0": 0.8403,
  "alpha_con_1": 0.3697,
  "alpha_con_2": 0.5074,
  "alpha_con_3": 0.5639,
  "alpha_con_4": 0.7564
 },
 "arg_4_7": {
  "alpha_con_0": 0.302,
  "alpha_con_1": 0.5474,
  "alpha_con_2": 0.8395,
  "alpha_con_3": 0.9781,
  "alpha_con_4": 0.6719
 },
 "arg_4_8": {
  "alpha_con_0": 0.6133,
  "alpha_con_1": 0.9314,
  "alpha_con_2": 0.811,
  "alpha_con_3": 0.843,
  "alpha_con_4": 0.3471
 },
 "arg_4_9": {
  "alpha_con_0": 0.7259,
  "alpha_con_1": 0.2244,
  "alpha_con_2": 0.8541,
  "alpha_con_3": 0.9995,
  "alpha_con_4": 0.8197
 },
 "arg_4_121": {
  "alpha_pro_0": 0.978,
  "alpha_pro_1": 0.4713,
  "alpha_pro_2": 0.6701,
  "alpha_pro_3": 0.763,
  "alpha_pro_4": 0.2211
 },
 "arg_4_122": {
  "alpha_pro_0": 0.9516,
  "alpha_pro_1": 0.1888,
  "alpha_pro_2": 0.7303,
  "alpha_pro_3": 0.3819,
  "alpha_pro_4": 0.9709
 },
 "arg_4_123": {
  "alpha_pro_0": 0.8068,
  "alpha_pro_1": 0.8527,
  "alpha_pro_2": 0.0043,
  "alpha_pro_3": 0.6997,
  "alpha_pro_4": 0.6889
 },
 "arg_4_124": {
  "alpha_pro_0": 0.992,
  "alpha_pro_1": 0.7508,
  "alpha_pro_2": 0.3748,
  "alpha_pro_3": 0.8844,
  "alpha_pro_4": 0.4226
 },
 "arg_4_125": {
  "alpha_pro_0": 0.7433,
  "alpha_pro_1": 0.9962,
  "alpha_pro_2": 0.3116,
  "alpha_pro_3": 0.1779,
  "alpha_pro_4": 0.9963
 },
 "arg_4_126": {
  "alpha_pro_0": 0.9934,
  "alpha_pro_1": 0.7855,
  "alpha_pro_2": 0.8668,
  "alpha_pro_3": 0.6019,
  "alpha_pro_4": 0.6363
 },
 "arg_4_127": {
  "alpha_pro_0": 0.6553,
  "alpha_pro_1": 0.542,
  "alpha_pro_2": 0.829,
  "alpha_pro_3": 0.5982,
  "alpha_pro_4": 0.6373
 },
 "arg_4_128": {
  "alpha_pro_0": 0.0288,
  "alpha_pro_1": 0.8518,
  "alpha_pro_2": 0.2513,
  "alpha_pro_3": 0.7952,
  "alpha_pro_4": 0.9382
 },
 "arg_4_129": {
  "alpha_pro_0": 0.8434,
  "alpha_pro_1": 0.9051,
  "alpha_pro_2": 0.732,
  "alpha_pro_3": 0.698,
  "alpha_pro_4": 0.9157
 },
 "arg_4_130": {
  "alpha_pro_0": 0.8155,
  "alpha_pro_1": 0.5484,
  "alpha_pro_2": 0.8881,
  "alpha_pro_3": 0.419,
  "alpha_pro_4": 0.8986
 }
}
