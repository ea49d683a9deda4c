"""A clinic for rules on a new row's time span ("at a time when that doctor has no other
scheduled appointment"): Dr. Lee is booked 2025-02-01 09:00-10:00; her 2025-02-02
appointment is cancelled."""

from __future__ import annotations

from tests.generators.railway import bed, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "doctors",
            "columns": [col("doctor_id", "integer"), col("name", "text")],
            "primary_key": ["doctor_id"],
        },
        {
            "name": "patients",
            "columns": [col("patient_id", "integer"), col("email", "text")],
            "primary_key": ["patient_id"],
        },
        {
            "name": "appointments",
            "columns": [
                col("appointment_id", "integer"),
                col("patient_id", "integer"),
                col("doctor_id", "integer"),
                col("start_time", "datetime"),
                col("end_time", "datetime"),
                col("status", "text"),
            ],
            "primary_key": ["appointment_id"],
            "foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors")],
            "checks": ["status IN ('scheduled', 'completed', 'cancelled')"],
        },
    ]
}
SEED = {
    "doctors": [{"doctor_id": 1, "name": "Ann Lee"}, {"doctor_id": 2, "name": "Bo Kim"}],
    "patients": [{"patient_id": 5, "email": "sam@example.com"}],
    "appointments": [
        {
            "appointment_id": 30,
            "patient_id": 5,
            "doctor_id": 1,
            "start_time": "2025-02-01T09:00:00",
            "end_time": "2025-02-01T10:00:00",
            "status": "scheduled",
        },
        {
            "appointment_id": 31,
            "patient_id": 5,
            "doctor_id": 1,
            "start_time": "2025-02-02T09:00:00",
            "end_time": "2025-02-02T10:00:00",
            "status": "cancelled",
        },
    ],
}


def medicine_spec() -> EnvironmentSpec:
    return bed("medicine", SCHEMA, SEED)
