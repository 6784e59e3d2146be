"""Statistical models fitted to votes: Dawid-Skene and the one-coin model (annotators' reliability), Bradley-Terry (a
ranking from pairwise wins), and competition ranks. Pure numpy, no database: the declared gold rules (declared/)
fit them, as analysis/ and the scorers do, so they sit below both."""
