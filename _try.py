
from generators.catalogue import fallback_choice, realise
from generators.patterns import catalogue
from generators.toolkit import schema_tools
from tests.generators.finance import finance_brief, finance_spec
from toolscale.figures import environment_figures
from toolscale.spec import EnvironmentSpec

b=finance_brief()
for label, s in [("banking", EnvironmentSpec.model_validate_json(open('tests/fixtures/banking/environment.json').read())), ("finance", finance_spec([]) if False else None)]:
    if s is None:
        from tests.generators.finance import SEED, finance_schema
        sch=finance_schema(); s=EnvironmentSpec(name="finance", schema_=sch, seed=SEED, tools=schema_tools(sch))
    else:
        s=s.model_copy(update={"tools": schema_tools(s.schema_)})
    cands=catalogue(s.schema_, s.seed)
    ch=fallback_choice(cands, b.rules, s.schema_)
    for r in ch.rules: print(r.rule, r.candidate, [c.model_dump(exclude_defaults=True) for c in r.conditions])
    out=realise(ch, cands, b.rules, s)
    for d in out.dropped: print("DROP", d.reason, d.detail[:250])
    spec=s.model_copy(update={"tools": s.tools+out.tools, "rules": out.rules})
    print(label, environment_figures(spec))
    for r in out.rules: print(" ", r.enforced, r.rule[:60], [(e.tool,e.step) for e in r.enforced_by])
