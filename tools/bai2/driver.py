"""Runs the independent BAI2 parser (PyPI `bai2`, pinned in tools/bai2/requirements.txt) on one
file and prints one JSON object on standard output (docs/treasury.md "Independent BAI2 parser").

    python3 -I tools/bai2/driver.py --lib <install dir> <file.bai>

`<install dir>` is the `pip install --target` directory that tools/bai2/validator.ts fills. The
parser runs with its integrity checks on (record counts and control totals of every 49, 98 and 99
record). The output:

    {"library": "bai2 0.15.0", "valid": true, "accounts": [{"account": str, "currency": str,
      "amounts": {type code: int}, "transactions": [{"type_code": str, "credit_debit": "credit"|"debit",
      "amount": int, "bank_reference": str|null, "customer_reference": str|null, "text": str|null}]}]}
    {"library": "bai2 0.15.0", "valid": false, "error": str}

Exit status: 0 parsed, 1 refused (the JSON says why), 2 usage.
"""

import json
import sys


def main(argv):
    if len(argv) != 4 or argv[1] != "--lib":
        print("usage: driver.py --lib <install dir> <file.bai>", file=sys.stderr)
        return 2
    sys.path.insert(0, argv[2])
    from bai2 import bai2

    with open(argv[3], encoding="ascii", errors="replace") as f:
        text = f.read()
    try:
        parsed = bai2.parse_from_string(text, check_integrity=True)
    except Exception as e:  # the library's ParsingException, IntegrityException, ValueError, ...
        print(json.dumps({"library": "bai2 0.15.0", "valid": False, "error": f"{type(e).__name__}: {e}"}))
        return 1
    accounts = []
    for group in parsed.children:
        for account in group.children:
            accounts.append({
                "account": account.header.customer_account_number,
                "currency": account.header.currency or group.header.currency,
                "as_of_date": group.header.as_of_date.isoformat(),
                "amounts": {s.type_code.code: s.amount for s in account.header.summary_items if s.amount is not None},
                "transactions": [{
                    "type_code": t.type_code.code,
                    "credit_debit": t.type_code.transaction.name,
                    "amount": t.amount,
                    "bank_reference": t.bank_reference,
                    "customer_reference": t.customer_reference,
                    "text": t.text,
                } for t in account.children],
            })
    print(json.dumps({"library": "bai2 0.15.0", "valid": True, "accounts": accounts}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
