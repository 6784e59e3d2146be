"""What everything else stands on: the typed models, the database and Flask extensions, errors,
declared options, the plugin finder and the secret key. Nothing here imports another annotator package."""
