"""A big project's figures kept in the database: when to compute them (a thread or a process of its own, one
claim for every host), what is stale (the stamp, the generation), the signed payloads, the kept gold folded
forward, and `flask check`'s comparison. Above analysis/, which holds the pure functions these keep: analysis/
never decides when to compute nor reads what is kept."""
