"""Forms that are not HIT forms (those belong to their task type). CSRF comes with FlaskForm.

Forms for declared options (a HIT type's settings, a format's import options, a scorer's options)
are built from the declarations by `with_options`, and each field is checked by its option's own
parser, so a form accepts exactly what the command line accepts.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from flask_login import current_user
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, MultipleFileField
from wtforms import (
    BooleanField,
    Field,
    HiddenField,
    IntegerField,
    PasswordField,
    RadioField,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import (
    DataRequired,
    EqualTo,
    Length,
    NoneOf,
    NumberRange,
    Optional,
    Regexp,
    StopValidation,
    ValidationError,
)
from wtforms.widgets import CheckboxInput, ListWidget

from annotator.campaigns.kept_uploads import kept_files
from annotator.campaigns.projects import RESERVED_SLUGS
from annotator.core.forms import Form
from annotator.core.models import Project
from annotator.core.options import Option, OptionError
from annotator.people.passwords import MIN_LENGTH, password_problem
from annotator.quality import QUALITY_OPTIONS, quality_settings

USERNAME = Regexp(r"^[A-Za-z0-9_.@-]+$", message="Letters, digits and _ . @ - only.")


class LoginForm(Form):
    username = StringField("User name", validators=[DataRequired(), Length(max=80)])
    password = PasswordField("Password", validators=[DataRequired()])
    remember = BooleanField("Keep me logged in")


def allowed_password(username: Callable[[FlaskForm], str]) -> Callable[[FlaskForm, Field], None]:
    """A password field's check: the password policy (people/passwords.py) for the account `username(form)` names,
    the same rule as the command line's."""
    def check(form: FlaskForm, field: Field) -> None:
        problem = password_problem(field.data or "", username(form))
        if problem:
            raise StopValidation(problem)
    return check


class PasswordForm(Form):
    current = PasswordField("Current password", validators=[DataRequired()])
    new = PasswordField("New password", render_kw={"minlength": MIN_LENGTH},
                        validators=[DataRequired(), allowed_password(lambda _form: current_user.username)])
    repeat = PasswordField("New password again", validators=[DataRequired(), EqualTo("new", "The two do not match.")])


class NewUserForm(Form):
    username = StringField("User name", validators=[DataRequired(), Length(max=80), USERNAME])
    password = PasswordField("Password (empty: a one-time password is generated)", render_kw={"minlength": MIN_LENGTH},
                             validators=[Optional(), allowed_password(lambda form: form.username.data or "")])
    role = SelectField("Role", choices=[SelectChoice("annotator"), SelectChoice("admin")])


class BulkUsersForm(Form):
    usernames = TextAreaField("User names, one per line", validators=[DataRequired()],
                              render_kw={"rows": 6, "placeholder": "worker-001\nworker-002"})


class TokenForm(Form):
    note = StringField("What the token is for (optional)", validators=[Length(max=120)])


class ActionForm(Form):
    """A button that changes something (archive, deactivate, revoke): CSRF and nothing else."""


class DeleteProjectForm(Form):
    confirm = StringField("Type the project's slug to confirm", validators=[DataRequired()])


class AudienceForm(Form):
    audience = RadioField("Open to", choices=[SelectChoice("all", "every annotator"),
                                              SelectChoice("listed", "only the annotators ticked below")])
    annotators = SelectMultipleField("Annotators", coerce=int, choices=[], widget=ListWidget(prefix_label=False),
                                     option_widget=CheckboxInput())


class ProjectSettingsForm(Form):
    """Settings shared by every project; task-type settings are added by `with_options`."""

    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    k = IntegerField("Annotators per item (k)", validators=[DataRequired(), NumberRange(1, 1000)])
    lease_minutes = IntegerField("Lease (minutes)", validators=[DataRequired(), NumberRange(1, 24 * 60)])
    guidelines = TextAreaField("Guidelines (shown to annotators; plain text, blank lines separate paragraphs)")


def file_or_kept(message: str, kept: str = "kept") -> Callable[[FlaskForm, Field], None]:
    """A file field's check: files chosen now, or kept from the form's last try (campaigns/kept_uploads.py) under
    the token of the form's hidden field `kept`."""
    def check(form: FlaskForm, field: Field) -> None:
        chosen = field.data if isinstance(field.data, list) else [field.data]
        if not any(f and getattr(f, "filename", "") for f in chosen) and not kept_files(form[kept].data):
            raise StopValidation(message)
    return check


class ImportForm(Form):
    """Files for a format's importer; the format's options and the type's settings are added to it.

    `kept`: the token of the files of the form's last try, used when no file is chosen this time.
    """

    files = MultipleFileField("Files (or one zip of them)", validators=[file_or_kept("Choose the file(s) to import.")])
    kept = HiddenField()


class NewProjectForm(ImportForm):
    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    slug = StringField("Slug (in URLs: lower-case letters, digits, - and _)", validators=[
        DataRequired(), Length(max=80),
        Regexp(r"^[a-z0-9][a-z0-9_-]*$",
               message="Lower-case letters, digits, - and _ only, starting with a letter or digit."),
                       NoneOf(sorted(RESERVED_SLUGS), message="This is the address of an admin page: choose another.")])
    k = IntegerField("Annotators per item (k)", validators=[DataRequired(), NumberRange(1, 1000)])
    lease_minutes = IntegerField("Lease (minutes)", default=30, validators=[DataRequired(), NumberRange(1, 24 * 60)])
    guidelines = TextAreaField("Guidelines (shown to annotators above every HIT)")


class GoldSetForm(Form):
    """Upload a gold set of one scorer; the scorer's options are added by `with_options`."""

    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    file = FileField("Gold file", validators=[file_or_kept("Choose the gold file.")])
    kept = HiddenField()


class SubmissionForm(Form):
    team = StringField("Team", validators=[DataRequired(), Length(max=120)])
    system = StringField("System", validators=[DataRequired(), Length(max=120)])
    file = FileField("Submission file", validators=[file_or_kept("Choose the submission file.")])
    kept = HiddenField()


def _checked_by(option: Option) -> Callable[[FlaskForm, Field], None]:
    """A field's value checked by its option; a blank field means "as it is" (the default for a new project)."""
    def check(_form: FlaskForm, field: Field) -> None:
        if field.data in ("", None):
            return
        try:
            option.parse(field.data)
        except OptionError as error:
            message = str(error).removeprefix(f"option {option.name} ")
            raise ValidationError(message[:1].upper() + message[1:]) from None
    return check


def option_field(option: Option) -> Field:
    """The form field of one declared option, checked by the option's parser."""
    description = option.help if option.label else ""
    if option.type is bool:
        return BooleanField(option.title, description=description)
    if option.type is Path:
        return FileField(option.title, description=description)
    if option.choices is not None:
        choices = [SelectChoice(str(c)) for c in option.choices]
        if option.default is None:
            choices.insert(0, SelectChoice("", "(none)"))
        return SelectField(option.title, choices=choices, description=description, validators=[_checked_by(option)])
    render: dict[str, Any] = {}
    if option.type in (int, float) and not option.multiple:
        render = {"type": "number", "step": "any" if option.type is float else "1"}
        render.update({k: v for k, v in (("min", option.minimum), ("max", option.maximum)) if v is not None})
    kind = TextAreaField if option.multiline or option.multiple else StringField
    return kind(option.title, description=description, render_kw=render, validators=[_checked_by(option)])


def with_options(base: type[FlaskForm], options: Iterable[Option], name: str) -> type[FlaskForm]:
    """A subclass of `base` with one field per option (named as the option)."""
    fields = {}
    for option in (o for o in options if not o.cli_only):
        if hasattr(base, option.name) or option.name in fields:
            raise RuntimeError(f"option {option.name!r} clashes with a field of {base.__name__}")
        fields[option.name] = option_field(option)
    return type(name, (base,), fields)


def options_form(options: Sequence[Option], values: dict[str, Any], name: str,
                 formdata: object = None) -> FlaskForm:
    """A form of these options alone, filled from typed `values` (or, with `formdata`, from a request)."""
    form_class = with_options(Form, options, name)
    data = option_defaults(options, values)
    return form_class(formdata=formdata, data=data) if formdata is not None else form_class(data=data)


def option_values(form: FlaskForm, options: Iterable[Option]) -> dict[str, Any]:
    """The options' values as the form holds them (text; files as uploads), None for empty fields."""
    values = {}
    for option in (o for o in options if not o.cli_only):
        data = form[option.name].data
        values[option.name] = None if data in ("", None) and option.type is not bool else data
    return values


def option_defaults(options: Iterable[Option], values: dict[str, Any]) -> dict[str, str | bool]:
    """Form data for these options from typed values (e.g. a project's settings)."""
    return {o.name: (bool(values.get(o.name)) if o.type is bool else o.text(values.get(o.name)))
            for o in options if not o.cli_only}


def quality_form(project: Project, formdata: object = None) -> FlaskForm:
    """A project's quality settings as a form: the project page shows it, the quality view reads it back."""
    return options_form(QUALITY_OPTIONS, dict(quality_settings(project).values), "QualityForm", formdata)


def whole_number(text: str | None) -> int | None:
    """A form's whole number, or None (absent or not a number: then nothing is confirmed)."""
    return int(text) if text and text.isdigit() and len(text) < 10 else None
