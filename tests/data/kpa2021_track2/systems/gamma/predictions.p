{
 "arg_1_0": {
  "gamma_con_0": 0.6862,
  "gamma_con_1": 0.3345,
  "gamma_con_2": 0.8372,
  "gamma_con_3": 0.756,
  "gamma_con_4": 0.5886
 },
 "arg_1_1": {
  "gamma_con_0": 0.3733,
  "gamma_con_1": 0.8765,
  "gamma_con_2": 0.6948,
  "gamma_con_3": 0.5926,
  "gamma_con_4": 0.8133
 },
 "arg_1_2": {
  "gamma_con_0": 0.7237,
  "gamma_con_1": 0.693,
  "gamma_con_2": 0.0725,
  "gamma_con_3": 0.6581,
  "gamma_con_4": 0.0704
 },
 "arg_1_3": {
  "gamma_con_0": 0.4531,
  "gamma_con_1": 0.4893,
  "gamma_con_2": 0.7199,
  "gamma_con_3": 0.8036,
  "gamma_con_4": 0.5046
 },
 "arg_1_4": {
  "gamma_con_0": 0.7067,
  "gamma_con_1": 0.8077,
  "gamma_con_2": 0.7563,
  "gamma_con_3": 0.3857,
  "gamma_con_4": 0.693
 },
 "arg_1_5": {
  "gamma_con_0": 0.264,
  "gamma_con_1": 0.3331,
  "gamma_con_2": 0.9371,
  "gamma_con_3": 0.9575,
  "gamma_con_4": 0.8371
 },
 "arg_1_8": {
  "gamma_con_0": 0.0961,
  "gamma_con_1": 0.8424,
  "gamma_con_2": 0.7299,
  "gamma_con_3": 0.5152,
  "gamma_con_4": 0.983
 },
 "arg_1_13": {
  "gamma_con_0": 0.1818,
  "gamma_con_1": 0.6158,
  "gamma_con_2": 0.461,
  "gamma_con_3": 0.6216,
  "gamma_con_4": 0.7876
 },
 "arg_1_15": {
  "gamma_con_0": 0.8106,
  "gamma_con_1": 0.7683,
  "gamma_con_2": 0.4354,
  "gamma_con_3": 0.5147,
  "gamma_con_4": 0.1106
 },
 "arg_1_19": {
  "gamma_con_0": 0.3686,
  "gamma_con_1": 0.0989,
  "gamma_con_2": 0.5757,
  "gamma_con_3": 0.8036,
  "gamma_con_4": 0.2216
 },
 "arg_1_21": {
  "gamma_con_0": 0.0958,
  "gamma_con_1": 0.5783,
  "gamma_con_2": 0.2779,
  "gamma_con_3": 0.5815,
  "gamma_con_4": 0.6039
 },
 "arg_1_26": {
  "gamma_con_0": 0.6877,
  "gamma_con_1": 0.1369,
  "gamma_con_2": 0.3823,
  "gamma_con_3": 0.7621,
  "gamma_con_4": 0.8381
 },
 "arg_1_35": {
  "gamma_con_0": 0.4176,
  "gamma_con_1": 0.4088,
  "gamma_con_2": 0.5048,
  "gamma_con_3": 0.989,
  "gamma_con_4": 0.7899
 },
 "arg_1_56": {
  "gamma_con_0": 0.1506,
  "gamma_con_1": 0.6799,
  "gamma_con_2": 0.879,
  "gamma_con_3": 0.4081,
  "gamma_con_4": 0.2956
 },
 "arg_1_99": {
  "gamma_pro_0": 0.9648,
  "gamma_pro_1": 0.2419,
  "gamma_pro_2": 0.1784,
  "gamma_pro_3": 0.1249,
  "gamma_pro_4": 0.2297
 },
 "arg_1_100": {
  "gamma_pro_0": 0.6812,
  "gamma_pro_1": 0.2507,
  "gamma_pro_2": 0.2883,
  "gamma_pro_3": 0.1247,
  "gamma_pro_4": 0.3839
 },
 "arg_1_102": {
  "gamma_pro_0": 0.6914,
  "gamma_pro_1": 0.3209,
  "gamma_pro_2": 0.6401,
  "gamma_pro_3": 0.511,
  "gamma_pro_4": 0.8094
 },
 "arg_1_103": {
  "gamma_pro_0": 0.0148,
  "gamma_pro_1": 0.7058,
  "gamma_pro_2": 0.6452,
  "gamma_pro_3": 0.9378,
  "gamma_pro_4": 0.0526
 },
 "arg_1_104": {
  "gamma_pro_0": 0.8623,
  "gamma_pro_1": 0.8797,
  "gamma_pro_2": 0.478,
  "gamma_pro_3": 0.9415,
  "gamma_pro_4": 0.1913
 },
 "arg_1_106": {
  "gamma_pro_0": 0.7815,
  "gamma_pro_1": 0.4205,
  "gamma_pro_2": 0.3506,
  "gamma_pro_3": 0.4097,
  "gamma_pro_4": 0.122
 },
 "arg_1_110": {
  "gamma_pro_0": 0.3946,
  "gamma_pro_1": 0.47,
  "gamma_pro_2": 0.2347,
  "gamma_pro_3": 0.2065,
  "gamma_pro_4": 0.2338
 },
 "arg_1_113": {
  "gamma_pro_0": 0.9255,
  "gamma_pro_1": 0.7626,
  "gamma_pro_2": 0.5159,
  "gamma_pro_3": 0.004,
  "gamma_pro_4": 0.2837
 },
 "arg_1_120": {
  "gamma_pro_0": 0.7787,
  "gamma_pro_1": 0.6183,
  "gamma_pro_2": 0.3363,
  "gamma_pro_3": 0.5138,
  "gamma_pro_4": 0.455
 },
 "arg_1_125": {
  "gamma_pro_0": 0.753,
  "gamma_pro_1": 0.2565,
  "gamma_pro_2": 0.2213,
  "gamma_pro_3": 0.3738,
  "gamma_pro_4": 0.0439
 },
 "arg_1_131": {
  "gamma_pro_0": 0.795,
  "gamma_pro_1": 0.0664,
  "gamma_pro_2": 0.0461,
  "gamma_pro_3": 0.3008,
  "gamma_pro_4": 0.6785
 },
 "arg_1_188": {
  "gamma_pro_0": 0.3476,
  "gamma_pro_1": 0.9271,
  "gamma_pro_2": 0.9035,
  "gamma_pro_3": 0.9283,
  "gamma_pro_4": 0.0912
 }
}
