"""Declared campaigns: a HIT type from a definition file, with no code (docs/declared-campaigns.md).

definition (+ definition_checks): the file's shape and its validator. answers: what a valid answer is and its
label rows. gold (+ rules, agreement, controls): gold by each question's rule, agreement units, control items.
form, preview: the HIT page. items: the items file. pages: the admin's create-from-files page. The type itself
is annotator/tasks/custom.py; the file format (import and export) is annotator/shared_tasks/custom/exchange.py.
"""

TYPE_NAME = "custom"
"""The HIT type of declared projects (annotator/tasks/custom.py): shared code that makes one names it by this."""
