{
 "arg_4_0": {
  "gamma_con_0": 0.6862,
  "gamma_con_1": 0.3345,
  "gamma_con_2": 0.8372,
  "gamma_con_3": 0.756,
  "gamma_con_4": 0.5886
 },
 "arg_4_1": {
  "gamma_con_0": 0.3733,
  "gamma_con_1": 0.8765,
  "gamma_con_2": 0.6948,
  "gamma_con_3": 0.5926,
  "gamma_con_4": 0.8133
 },
 "arg_4_2": {
  "gamma_con_0": 0.7237,
  "gamma_con_1": 0.693,
  "gamma_con_2": 0.0725,
  "gamma_con_3": 0.6581,
  "gamma_con_4": 0.0704
 },
 "arg_4_3": {
  "gamma_con_0": 0.4531,
  "gamma_con_1": 0.4893,
  "gamma_con_2": 0.7199,
  "gamma_con_3": 0.8036,
  "gamma_con_4": 0.5046
 },
 "arg_4_4": {
  "gamma_con_0": 0.7067,
  "gamma_con_1": 0.8077,
  "gamma_con_2": 0.7563,
  "gamma_con_3": 0.3857,
  "gamma_con_4": 0.693
 },
 "arg_4_5": {
  "gamma_con_0": 0.264,
  "gamma_con_1": 0.3331,
  "gamma_con_2": 0.9371,
  "gamma_con_3": 0.9575,
  "gamma_con_4": 0.8371
 },
 "arg_4_6": {
  "gamma_con_0": 0.0961,
  "gamma_con_1": 0.8424,
  "gamma_con_2": 0.7299,
  "gamma_con_3": 0.5152,
  "gamma_con_4": 0.983
 },
 "arg_4_7": {
  "gamma_con_0": 0.1818,
  "gamma_con_1": 0.6158,
  "gamma_con_2": 0.461,
  "gamma_con_3": 0.6216,
  "gamma_con_4": 0.7876
 },
 "arg_4_8": {
  "gamma_con_0": 0.8106,
  "gamma_con_1": 0.7683,
  "gamma_con_2": 0.4354,
  "gamma_con_3": 0.5147,
  "gamma_con_4": 0.1106
 },
 "arg_4_9": {
  "gamma_con_0": 0.3686,
  "gamma_con_1": 0.0989,
  "gamma_con_2": 0.5757,
  "gamma_con_3": 0.8036,
  "gamma_con_4": 0.2216
 },
 "arg_4_121": {
  "gamma_pro_0": 0.0958,
  "gamma_pro_1": 0.5783,
  "gamma_pro_2": 0.2779,
  "gamma_pro_3": 0.5815,
  "gamma_pro_4": 0.6039
 },
 "arg_4_122": {
  "gamma_pro_0": 0.6877,
  "gamma_pro_1": 0.1369,
  "gamma_pro_2": 0.3823,
  "gamma_pro_3": 0.7621,
  "gamma_pro_4": 0.8381
 },
 "arg_4_123": {
  "gamma_pro_0": 0.4176,
  "gamma_pro_1": 0.4088,
  "gamma_pro_2": 0.5048,
  "gamma_pro_3": 0.989,
  "gamma_pro_4": 0.7899
 },
 "arg_4_124": {
  "gamma_pro_0": 0.1506,
  "gamma_pro_1": 0.6799,
  "gamma_pro_2": 0.879,
  "gamma_pro_3": 0.4081,
  "gamma_pro_4": 0.2956
 },
 "arg_4_125": {
  "gamma_pro_0": 0.9648,
  "gamma_pro_1": 0.2419,
  "gamma_pro_2": 0.1784,
  "gamma_pro_3": 0.1249,
  "gamma_pro_4": 0.2297
 },
 "arg_4_126": {
  "gamma_pro_0": 0.6812,
  "gamma_pro_1": 0.2507,
  "gamma_pro_2": 0.2883,
  "gamma_pro_3": 0.1247,
  "gamma_pro_4": 0.3839
 },
 "arg_4_127": {
  "gamma_pro_0": 0.6914,
  "gamma_pro_1": 0.3209,
  "gamma_pro_2": 0.6401,
  "gamma_pro_3": 0.511,
  "gamma_pro_4": 0.8094
 },
 "arg_4_128": {
  "gamma_pro_0": 0.0148,
  "gamma_pro_1": 0.7058,
  "gamma_pro_2": 0.6452,
  "gamma_pro_3": 0.9378,
  "gamma_pro_4": 0.0526
 },
 "arg_4_129": {
  "gamma_pro_0": 0.8623,
  "gamma_pro_1": 0.8797,
  "gamma_pro_2": 0.478,
  "gamma_pro_3": 0.9415,
  "gamma_pro_4": 0.1913
 },
 "arg_4_130": {
  "gamma_pro_0": 0.7815,
  "gamma_pro_1": 0.4205,
  "gamma_pro_2": 0.3506,
  "gamma_pro_3": 0.4097,
  "gamma_pro_4": 0.122
 }
}
