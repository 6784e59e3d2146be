"""Data that lasts: a whole database backed up and restored, one project moved between servers.

Both write the same archive (archive.py): a zip of one JSON Lines file per table and a manifest, read
back only once every file has been checked, so that a bad file never leaves half a database behind.
backup.py and restore.py carry the whole database; project_move.py carries one project and remaps its ids.
"""
