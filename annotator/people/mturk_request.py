"""The MTurk create-HIT request of a project's study link: the ExternalQuestion and the worker filters.

Why a file and not a call: the server holds no AWS credentials. The request is written as the JSON that both
`aws mturk create-hit --cli-input-json file://create-hit.json` and boto3's `client.create_hit(**request)`
take, so the requester creates the HIT with their own account, production or sandbox.

Sources (checked 2026-11): the fields and their types are botocore's service model of MTurk
(botocore/data/mturk/2017-01-17/service-2.json, shape CreateHITRequest: Title, Description, Reward (a
string, pattern ^[0-9]+(\\.)?[0-9]{0,2}$), LifetimeInSeconds and AssignmentDurationInSeconds required,
MaxAssignments, Question, QualificationRequirements of at most ten). The qualification type ids are the
table "Qualification Type IDs" of AWS's QualificationRequirement reference
(docs.aws.amazon.com/AWSMechTurk/latest/AWSMturkAPI/ApiReference_QualificationRequirementDataStructureArticle.html):
Masters 2F1QJWKUDD8XADTFD2Q0G6UTO95ALH in production and 2ARFPLSP75KLA8M8DH1HTEQVJT3SY6 in the sandbox
(Comparator Exists), Worker_PercentAssignmentsApproved 000000000000000000L0 (an integer 0 to 100),
Worker_NumberHITsApproved 00000000000000000040, Worker_Locale 00000000000000000071 (LocaleValues with an
ISO 3166 Country; EqualTo for one, In for up to 30).
"""
from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import CrowdLink, Project
from annotator.people.crowd import CrowdError, entry_url
from annotator.people.crowd_filters import crowd_settings
from annotator.people.crowd_limits import workers_needed

EXTERNAL_QUESTION = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
MASTERS = {"production": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "sandbox": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"}
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"
ENVIRONMENTS = tuple(MASTERS)
MAX_MINUTES = 365 * 24 * 60  # the longest assignment the settings allow


def external_question(url: str, frame_height: int) -> str:
    """The ExternalQuestion XML that makes MTurk show `url` in its frame."""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION}">\n'
            f"  <ExternalURL>{escape(url)}</ExternalURL>\n"
            f"  <FrameHeight>{frame_height}</FrameHeight>\n"
            "</ExternalQuestion>")


def qualification_requirements(values: dict[str, Any], environment: str = "production") -> list[dict[str, Any]]:
    """The worker filters as MTurk QualificationRequirements (all must hold for a worker to accept)."""
    if environment not in MASTERS:
        raise CrowdError(f"environment {environment!r} is not one of {', '.join(ENVIRONMENTS)}")
    requirements: list[dict[str, Any]] = []
    if values["masters"]:
        requirements.append({"QualificationTypeId": MASTERS[environment], "Comparator": "Exists"})
    if values["approval_rate_above"] is not None:
        requirements.append({"QualificationTypeId": PERCENT_APPROVED, "Comparator": "GreaterThan",
                             "IntegerValues": [values["approval_rate_above"]]})
    if values["min_approved"] is not None:
        requirements.append({"QualificationTypeId": NUMBER_APPROVED, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [values["min_approved"]]})
    countries = list(values["countries"] or ())
    if countries:
        requirements.append({"QualificationTypeId": LOCALE, "Comparator": "EqualTo" if len(countries) == 1 else "In",
                             "LocaleValues": [{"Country": code} for code in countries]})
    return requirements


def create_hit_request(project: Project, base_url: str, environment: str = "production") -> dict[str, Any]:
    """The create-HIT request of the project's MTurk link; CrowdError says what is missing."""
    link = db.session.scalar(select(CrowdLink).where(CrowdLink.project_id == project.id,
                                                     CrowdLink.platform == "mturk"))
    if link is None:
        raise CrowdError(f"project {project.slug!r} has no MTurk link yet: create it first")
    if not base_url.startswith("https://"):
        raise CrowdError(f"the server's public address {base_url} is not https: MTurk frames only HTTPS pages "
                         "(set ANNOTATOR_BASE_URL, or give --base-url)")
    values = crowd_settings(project)
    if values["reward"] is None:
        raise CrowdError("set the MTurk reward per assignment first (crowd settings: reward)")
    return {
        "Title": values["hit_title"] or project.name,
        "Description": values["hit_description"] or f"Annotation for {project.name}: {link.hits} short HITs "
                                                    "in this site's pages, then a completion code.",
        "Reward": values["reward"],
        "MaxAssignments": workers_needed(project, link.hits),
        "AssignmentDurationInSeconds": 60 * (values["assignment_minutes"]
                                             or min(link.hits * project.lease_minutes, MAX_MINUTES)),
        "LifetimeInSeconds": 3600 * values["lifetime_hours"],
        "Question": external_question(entry_url(link, base_url), values["frame_height"]),
        "QualificationRequirements": qualification_requirements(values, environment),
    }
