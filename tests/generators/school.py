"""A school schema for the rules that change an enrollment's state ("a student can drop a
course only while the enrollment status is active and no grade has been recorded for it")
and hold in one case ("a pass_fail enrollment ...", "a course marked core ..."), with a
small seed: one graded and one ungraded active enrollment, one dropped; Biology 2 is a core
course that allows pass/fail grading, Geography and Chemistry neither; Biology 2 and
Chemistry are spring courses, Geography a fall one."""

from __future__ import annotations

from pathlib import Path

from generators.toolkit import schema_tools
from tests.generators.railway import col, fk
from toolscale.brief import load_brief
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec

BRIEF = Path(__file__).parents[2] / "domains" / "school" / "brief.yaml"


SCHEMA = {
    "tables": [
        {
            "name": "students",
            "columns": [col("student_id", "integer"), col("name", "text"), col("email", "text")],
            "primary_key": ["student_id"],
        },
        {
            "name": "courses",
            "columns": [
                col("course_id", "integer"),
                col("name", "text"),
                col("capacity", "integer"),
                col("allows_pass_fail", "boolean"),
                col("is_core", "boolean"),
                col("term", "text"),
            ],
            "primary_key": ["course_id"],
        },
        {
            "name": "enrollments",
            "columns": [
                col("enrollment_id", "integer"),
                col("student_id", "integer"),
                col("course_id", "integer"),
                col("status", "text"),
                col("grading", "text"),
            ],
            "primary_key": ["enrollment_id"],
            "foreign_keys": [fk("student_id", "students"), fk("course_id", "courses")],
            "checks": [
                "status IN ('active', 'dropped')",
                "grading IN ('letter', 'pass_fail')",
            ],
        },
        {
            "name": "grades",
            "columns": [
                col("grade_id", "integer"),
                col("enrollment_id", "integer"),
                col("score", "integer"),
            ],
            "primary_key": ["grade_id"],
            "foreign_keys": [fk("enrollment_id", "enrollments")],
        },
    ]
}


def enrollment(key: int, student: int, course: int, status: str, grading: str) -> dict:
    return {
        "enrollment_id": key,
        "student_id": student,
        "course_id": course,
        "status": status,
        "grading": grading,
    }


SEED = {
    "students": [
        {"student_id": 1, "name": "Emma Lopez", "email": "emma@example.com"},
        {"student_id": 2, "name": "Noah Kim", "email": "noah@example.com"},
    ],
    "courses": [
        {
            "course_id": 10,
            "name": "Biology 2",
            "capacity": 30,
            "allows_pass_fail": True,
            "is_core": True,
            "term": "spring",
        },
        {
            "course_id": 11,
            "name": "Geography",
            "capacity": 30,
            "allows_pass_fail": False,
            "is_core": False,
            "term": "fall",
        },
        {
            "course_id": 12,
            "name": "Chemistry",
            "capacity": 30,
            "allows_pass_fail": False,
            "is_core": False,
            "term": "spring",
        },
    ],
    "enrollments": [
        enrollment(300, 1, 10, "active", "letter"),  # graded
        enrollment(301, 1, 11, "active", "letter"),
        enrollment(302, 2, 10, "dropped", "letter"),
        enrollment(303, 2, 11, "active", "pass_fail"),
    ],
    "grades": [{"grade_id": 400, "enrollment_id": 300, "score": 87}],
}


def school_spec() -> EnvironmentSpec:
    schema = Schema.model_validate(SCHEMA)
    return EnvironmentSpec(name="school", schema_=schema, seed=SEED, tools=schema_tools(schema))


def school_rules() -> list[str]:
    return load_brief(BRIEF).rules
