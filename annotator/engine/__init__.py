"""The assignment engine: who gets which item next, leases, exactly-once submits, and the invariants
that say it held (k distinct annotators per item, nobody twice). All concurrency lives here."""
