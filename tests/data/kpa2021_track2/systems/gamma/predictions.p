{
 "arg_1_0": {
  "gamma_con_0": 0.6862,
  "gamma_con_1": 0.3345,
  "gamma_con_2": 0.8372,
  "gamma_con_3": 0.756
 },
 "arg_1_1": {
  "gamma_con_0": 0.5886,
  "gamma_con_1": 0.3733,
  "gamma_con_2": 0.8765,
  "gamma_con_3": 0.6948
 },
 "arg_1_2": {
  "gamma_con_0": 0.5926,
  "gamma_con_1": 0.8133,
  "gamma_con_2": 0.7237,
  "gamma_con_3": 0.693
 },
 "arg_1_3": {
  "gamma_con_0": 0.0725,
  "gamma_con_1": 0.6581,
  "gamma_con_2": 0.0704,
  "gamma_con_3": 0.4531
 },
 "arg_1_4": {
  "gamma_con_0": 0.4893,
  "gamma_con_1": 0.7199,
  "gamma_con_2": 0.8036,
  "gamma_con_3": 0.5046
 },
 "arg_1_5": {
  "gamma_con_0": 0.7067,
  "gamma_con_1": 0.8077,
  "gamma_con_2": 0.7563,
  "gamma_con_3": 0.3857
 },
 "arg_1_8": {
  "gamma_con_0": 0.693,
  "gamma_con_1": 0.264,
  "gamma_con_2": 0.3331,
  "gamma_con_3": 0.9371
 },
 "arg_1_13": {
  "gamma_con_0": 0.9575,
  "gamma_con_1": 0.8371,
  "gamma_con_2": 0.0961,
  "gamma_con_3": 0.8424
 },
 "arg_1_15": {
  "gamma_con_0": 0.7299,
  "gamma_con_1": 0.5152,
  "gamma_con_2": 0.983,
  "gamma_con_3": 0.1818
 },
 "arg_1_19": {
  "gamma_con_0": 0.6158,
  "gamma_con_1": 0.461,
  "gamma_con_2": 0.6216,
  "gamma_con_3": 0.7876
 },
 "arg_1_21": {
  "gamma_con_0": 0.8106,
  "gamma_con_1": 0.7683,
  "gamma_con_2": 0.4354,
  "gamma_con_3": 0.5147
 },
 "arg_1_26": {
  "gamma_con_0": 0.1106,
  "gamma_con_1": 0.3686,
  "gamma_con_2": 0.0989,
  "gamma_con_3": 0.5757
 },
 "arg_1_35": {
  "gamma_con_0": 0.8036,
  "gamma_con_1": 0.2216,
  "gamma_con_2": 0.0958,
  "gamma_con_3": 0.5783
 },
 "arg_1_56": {
  "gamma_con_0": 0.2779,
  "gamma_con_1": 0.5815,
  "gamma_con_2": 0.6039,
  "gamma_con_3": 0.6877
 },
 "arg_1_99": {
  "gamma_pro_0": 0.1369,
  "gamma_pro_1": 0.3823,
  "gamma_pro_2": 0.7621,
  "gamma_pro_3": 0.8381
 },
 "arg_1_100": {
  "gamma_pro_0": 0.4176,
  "gamma_pro_1": 0.4088,
  "gamma_pro_2": 0.5048,
  "gamma_pro_3": 0.989
 },
 "arg_1_102": {
  "gamma_pro_0": 0.7899,
  "gamma_pro_1": 0.1506,
  "gamma_pro_2": 0.6799,
  "gamma_pro_3": 0.879
 },
 "arg_1_103": {
  "gamma_pro_0": 0.4081,
  "gamma_pro_1": 0.2956,
  "gamma_pro_2": 0.9648,
  "gamma_pro_3": 0.2419
 },
 "arg_1_104": {
  "gamma_pro_0": 0.1784,
  "gamma_pro_1": 0.1249,
  "gamma_pro_2": 0.2297,
  "gamma_pro_3": 0.6812
 },
 "arg_1_106": {
  "gamma_pro_0": 0.2507,
  "gamma_pro_1": 0.2883,
  "gamma_pro_2": 0.1247,
  "gamma_pro_3": 0.3839
 },
 "arg_1_110": {
  "gamma_pro_0": 0.6914,
  "gamma_pro_1": 0.3209,
  "gamma_pro_2": 0.6401,
  "gamma_pro_3": 0.511
 },
 "arg_1_113": {
  "gamma_pro_0": 0.8094,
  "gamma_pro_1": 0.0148,
  "gamma_pro_2": 0.7058,
  "gamma_pro_3": 0.6452
 },
 "arg_1_120": {
  "gamma_pro_0": 0.9378,
  "gamma_pro_1": 0.0526,
  "gamma_pro_2": 0.8623,
  "gamma_pro_3": 0.8797
 },
 "arg_1_125": {
  "gamma_pro_0": 0.478,
  "gamma_pro_1": 0.9415,
  "gamma_pro_2": 0.1913,
  "gamma_pro_3": 0.7815
 },
 "arg_1_131": {
  "gamma_pro_0": 0.4205,
  "gamma_pro_1": 0.3506,
  "gamma_pro_2": 0.4097,
  "gamma_pro_3": 0.122
 },
 "arg_1_188": {
  "gamma_pro_0": 0.3946,
  "gamma_pro_1": 0.47,
  "gamma_pro_2": 0.2347,
  "gamma_pro_3": 0.2065
 }
}
