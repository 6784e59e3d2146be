"""KPA-2021 (Key Point Analysis shared task, ArgMining 2021): argument / key-point match (Track 1), the
generation track's match check and key-point set comparison (Track 2), and the Track-1 scorer."""
