"""Forms that are not HIT forms (those belong to their task type). CSRF comes with FlaskForm."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (BooleanField, DecimalField, IntegerField, PasswordField, SelectField, StringField,
                     TextAreaField)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, NumberRange, Regexp

from ..tasks import TaskType


class LoginForm(FlaskForm):
    username = StringField("User name", validators=[DataRequired(), Length(max=80)])
    password = PasswordField("Password", validators=[DataRequired()])
    remember = BooleanField("Keep me logged in")


class PasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[DataRequired()])
    new = PasswordField("New password", validators=[DataRequired(), Length(min=8)])
    repeat = PasswordField("New password again", validators=[DataRequired(), EqualTo("new", "The two do not match.")])


class NewUserForm(FlaskForm):
    username = StringField("User name", validators=[
        DataRequired(), Length(max=80),
        Regexp(r"^[A-Za-z0-9_.@-]+$", message="Letters, digits and _ . @ - only.")])
    password = PasswordField("Password", validators=[DataRequired(), Length(min=8)])
    role = SelectField("Role", choices=[SelectChoice("annotator"), SelectChoice("admin")])


class ProjectSettingsForm(FlaskForm):
    """Settings shared by every project; task-type settings are added by `settings_form`."""

    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    k = IntegerField("Annotators per item (k)", validators=[DataRequired(), NumberRange(1, 1000)])
    lease_minutes = IntegerField("Lease (minutes)", validators=[DataRequired(), NumberRange(1, 24 * 60)])
    guidelines = TextAreaField("Guidelines (shown to annotators; plain text, blank lines separate paragraphs)")


class UploadForm(FlaskForm):
    file = FileField("File", validators=[FileRequired()])


def settings_form(task: TaskType, formdata=None, **data):  # type: ignore[no-untyped-def]
    """The settings form of a project of this task type: shared fields plus the type's own."""
    fields = {s.name: DecimalField(s.label, places=None, description=s.help,
                                   validators=[NumberRange(s.minimum, s.maximum)])
              for s in task.settings}
    form_class = type(f"{task.name}SettingsForm", (ProjectSettingsForm,), fields)
    return form_class(formdata=formdata, data=data) if formdata is not None else form_class(data=data)


class GoldSetForm(FlaskForm):
    """Upload a gold set; options that do not apply to the chosen task are ignored."""

    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    task = SelectField("Task", choices=[])
    file = FileField("Gold file (for kpa2021 a zip of the three CSV files)", validators=[FileRequired()])
    split = StringField("Split (kpa2021)", default="dev", validators=[Length(max=40)])
    variant = SelectField("Variant (kpa2021)", choices=[SelectChoice("official", "official (HEAD)"),
                                                         SelectChoice("plain-ap", "plain AP (before 2021-09-23)")])
    strict_topics = BooleanField("Count off-topic key points as wrong (kpa2021)")
    numeric = BooleanField("Compare scores as numbers (emphasis2020)")
    by_position = BooleanField("Align rows by position like CodaLab (ruarg2022)")
    subtask = SelectField("Subtask of a zip (recam2021)", choices=[SelectChoice("", "infer"), SelectChoice("1"),
                                                                   SelectChoice("2")])


class SubmissionForm(FlaskForm):
    team = StringField("Team", validators=[DataRequired(), Length(max=120)])
    system = StringField("System", validators=[DataRequired(), Length(max=120)])
    file = FileField("Submission file", validators=[FileRequired()])
