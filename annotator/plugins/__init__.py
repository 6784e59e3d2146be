"""The plug-in machinery of the shared tasks: what a shared task declares (shared_task.py) and the registry that
finds the declarations (registry.py). Below the declared engine, which reads the named rules and bridges they
declare; the shared tasks' own folders (annotator/shared_tasks/<task>/) sit at the top and build on everything."""
