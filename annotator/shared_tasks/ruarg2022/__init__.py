"""RuArg-2022, stance and premise per claim: the TSV files, the project exchange and the macro-F1 scorer."""
