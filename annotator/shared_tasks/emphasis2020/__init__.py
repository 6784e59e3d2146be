"""SemEval-2020 Task 10, emphasis selection: the token files, the project exchange and the Match_m scorer."""
