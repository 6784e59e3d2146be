"""A campaign's data in and out: creating projects, importing items and votes, exports, uploads,
leaderboards of scored submissions, and the demo that `make run` loads."""
