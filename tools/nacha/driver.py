"""Runs the independent NACHA validator (PyPI `achlens`, pinned in tools/nacha/requirements.txt) on
one file and prints one JSON object on standard output (docs/nacha-validator.md).

    python3 -I tools/nacha/driver.py --lib <install dir> <file.ach>

`<install dir>` is the `pip install --target` directory that tools/nacha/validator.ts fills; it is
put first on sys.path (with -I, nothing else from the user's site is seen). The output:

    {"library": "achlens 0.1.7", "valid": bool, "errors": [str], "warnings": [str]}

`valid` is achlens's own verdict: false when any finding has severity "error". Each finding is one
string: "<rule id> line <n> position <p> <field>: <message> (expected <e>, found <a>)", the parts
that achlens left empty omitted. Findings of severity "info" are not reported.
Exit status: 0 valid, 1 invalid, 2 the validator itself failed (message on standard error).
"""

import json
import sys


def describe(finding):
    """One finding as a line of text (see the module docstring)."""
    where = []
    if finding.line_number is not None:
        where.append(f"line {finding.line_number}")
    if finding.position is not None:
        where.append(f"position {finding.position}")
    if finding.field:
        where.append(finding.field)
    text = f"{finding.rule_id} {' '.join(where)}: {finding.message}".replace(" :", ":")
    if finding.expected is not None or finding.actual is not None:
        text += f" (expected {finding.expected}, found {finding.actual})"
    return text


def main(argv):
    if len(argv) != 4 or argv[1] != "--lib":
        print("usage: driver.py --lib <install dir> <file.ach>", file=sys.stderr)
        return 2
    sys.path.insert(0, argv[2])
    import achlens
    from achlens.core.validator import validate

    with open(argv[3], encoding="ascii", errors="replace", newline="") as f:
        content = f.read()
    report = validate(content, min_severity="warning", max_findings=10_000)
    errors = [describe(f) for f in report.findings if f.severity == "error"]
    warnings = [describe(f) for f in report.findings if f.severity == "warning"]
    if report.truncated:
        errors.append("achlens: more findings than reported (truncated at 10000)")
    json.dump(
        {
            "library": f"achlens {achlens.__version__}",
            "valid": bool(report.valid),
            "errors": errors,
            "warnings": warnings,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")
    return 0 if report.valid else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
