"""Which rules of a brief the wording maps onto a run's environment, without a model.

The run's schema is completed again from the brief (as generation does now) and the
catalogue rebuilt on its seed; each rule prints with the candidate and conditions the
rule map gives it, or none. Ends with one JSON line: rules mapped of rules in the brief.

    python bench/rules.py data/finance finance
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generators.allowances import charges  # noqa: E402
from generators.catalogue import fallback_choice  # noqa: E402
from generators.patterns import catalogue  # noqa: E402
from generators.schema import (  # noqa: E402
    ColumnProposal,
    SchemaProposal,
    TableProposal,
    completed,
    to_schema,
)
from toolscale.brief import brief_path, load_brief  # noqa: E402
from toolscale.spec import EnvironmentSpec  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder with environment.json (data/<domain>)")
    parser.add_argument("domain", help="the brief's domain")
    parser.add_argument("--domains", default=str(ROOT / "domains"))
    args = parser.parse_args()
    spec = EnvironmentSpec.model_validate_json(Path(args.run, "environment.json").read_text())
    brief = load_brief(brief_path(args.domains, args.domain))
    rules = brief.rules
    proposal = SchemaProposal(
        tables=[
            TableProposal(
                name=t.name,
                description=t.description,
                columns=[
                    ColumnProposal(
                        name=c.name,
                        type=c.type,
                        description=c.description,
                        values=t.enum_values(c.name) or [],
                    )
                    for c in t.columns
                ],
            )
            for t in spec.schema_.tables
        ]
    )
    schema = to_schema(completed(proposal, rules, brief.entities))
    charged = charges(schema, rules)
    choice = fallback_choice(catalogue(schema, spec.seed, charged), rules, schema, spec.seed)
    mapped = {m.rule: m for m in choice.rules}
    for i, rule in enumerate(rules, 1):
        print(f"{i}. {rule}")
        if i in mapped:
            m = mapped[i]
            conditions = [c.model_dump(exclude_defaults=True) for c in m.conditions]
            print(f"   -> {m.candidate} {conditions}")
    print(json.dumps({"domain": args.domain, "rules": len(rules), "mapped": len(mapped)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
