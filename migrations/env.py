import logging
from logging.config import fileConfig

from alembic import context
from flask import current_app

# this is the Alembic Config object, which provides
# access to the values within the .ini file in use.
config = context.config

# Interpret the config file for Python logging.
# This line sets up loggers basically.
# Not disable_existing_loggers: an upgrade run in a process that serves or reads (tests, scripts) must not
# silence the loggers its modules made before (annotator.analysis.label_reader warns through one).
fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger('alembic.env')


def get_engine():
    return current_app.extensions['migrate'].db.engine


def get_engine_url():
    return get_engine().url.render_as_string(hide_password=False).replace('%', '%%')


# add your model's MetaData object here
# for 'autogenerate' support
# from myapp import mymodel
# target_metadata = mymodel.Base.metadata
config.set_main_option('sqlalchemy.url', get_engine_url())
target_db = current_app.extensions['migrate'].db

# other values from the config, defined by the needs of env.py,
# can be acquired:
# my_important_option = config.get_main_option("my_important_option")
# ... etc.


def get_metadata():
    if hasattr(target_db, 'metadatas'):
        return target_db.metadatas[None]
    return target_db.metadata


def run_migrations_offline():
    """Run migrations in 'offline' mode.

    This configures the context with just a URL
    and not an Engine, though an Engine is acceptable
    here as well.  By skipping the Engine creation
    we don't even need a DBAPI to be available.

    Calls to context.execute() here emit the given string to the
    script output.

    """
    url = config.get_main_option("sqlalchemy.url")
    context.configure(
        url=url, target_metadata=get_metadata(), literal_binds=True
    )

    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    """Run migrations in 'online' mode.

    In this scenario we need to create an Engine
    and associate a connection with the context.

    """

    # this callback is used to prevent an auto-migration from being generated
    # when there are no changes to the schema
    # reference: http://alembic.zzzcomputing.com/en/latest/cookbook.html
    def process_revision_directives(context, revision, directives):
        if getattr(config.cmd_opts, 'autogenerate', False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info('No changes in schema detected.')

    conf_args = current_app.extensions['migrate'].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    connectable = get_engine()

    with connectable.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            _sqlite_foreign_keys(connection, False)
        # SQLite's DDL is transactional, but Alembic treats it as if it were not and commits each migration on its
        # own: a check that fails after them (the foreign keys below) then left the database migrated. In one
        # transaction, a refused upgrade changes nothing.
        if sqlite:
            conf_args = {"transactional_ddl": True, **conf_args}
        context.configure(
            connection=connection,
            target_metadata=get_metadata(),
            **conf_args
        )

        try:
            with context.begin_transaction():
                context.run_migrations()
                if sqlite:
                    _sqlite_check_foreign_keys(connection)
        finally:
            if sqlite:
                _sqlite_foreign_keys(connection, True)


def _sqlite_foreign_keys(connection, on):
    """Switch SQLite's foreign-key enforcement, which only works outside a transaction.

    Batch mode alters an SQLite table by copying it, dropping the original and renaming the copy;
    with enforcement on (the app's connect hook turns it on) dropping a parent table runs its
    ON DELETE CASCADE and empties the child tables. SQLite's own procedure for altering tables
    turns enforcement off first and checks the keys afterwards; so do we.
    """
    if connection.in_transaction():
        connection.commit()
    connection.connection.driver_connection.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")


def _sqlite_check_foreign_keys(connection):
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"the migration left {len(broken)} rows with broken foreign keys, e.g. {broken[0]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
