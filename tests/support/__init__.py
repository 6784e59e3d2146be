"""Helper modules shared by tests of several folders: they hold no tests, only what tests import.

Why a package of their own: at the top of tests/ they sat among conftest.py and the test folders, so a newcomer
could not tell a helper from a test module or see where a new helper goes. Here are the sample data per task
type (type_data), declared-campaign projects and their labels (declared_projects, declared_labels), votes through
the engine (voting, crowd_visits), the JSON API's answer shapes (api_answer_shapes, declared_api_submit), the
projects made by the code before one engine and their outputs (before_one_engine, before_one_engine_projects,
built_once), gunicorn on a socket the test bound (gunicorn_server), what every Hypothesis property checks after a
refusal (property_checks), and hand transcriptions of papers' rules, tables and formulas and of MTurk's request
shape (recam_rules, kpa_track2_tables, nominal_figures, emphasis_submissions, formula_data, mturk_shape,
model_campaign). A helper that only one folder's tests use stays in that folder (tests/web/tables.py,
tests/browser/page_pool.py, tests/browser/votes.py).
"""
