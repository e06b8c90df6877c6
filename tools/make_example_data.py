"""Write the example table, bounds and new rows that the README's commands run on (pdp_lib/data/examples/).

The Medical Cost data (pdp_lib/data/insurance.csv) as a user's table: age, bmi and children as they are, one
indicator column per level of sex, smoker and region, an intercept column, the label `charges` in dollars and a
column `epsilon` drawn from the paper's default profile in random order (seed 20261128), as in the chapter *PDP-OP
on your own data*; the public bounds of that chapter; and the first 20 rows without their label and level as rows
to predict.  Run from the repository's root: `python tools/make_example_data.py`.
"""

from pathlib import Path

import numpy as np

import pdp_lib

OUT = Path(__file__).resolve().parent.parent / "pdp_lib" / "data" / "examples"
PUBLIC = {"age": (18, 65), "bmi": (10, 60), "children": (0, 10)}


def main() -> None:
    raw = pdp_lib.load_medical_cost().raw
    table = raw[["age", "bmi", "children"]].astype(float)
    for column in ("sex", "smoker", "region"):
        for level in sorted(raw[column].unique()):
            table[f"{column}_{level}"] = (raw[column] == level).astype(float)
    table["intercept"] = 1.0
    table["charges"] = raw["charges"].astype(float)
    gen = np.random.default_rng(20261128)
    table["epsilon"] = gen.permutation(pdp_lib.privacy_profile(len(table), rng=gen))
    OUT.mkdir(parents=True, exist_ok=True)
    table.to_csv(OUT / "medical.csv", index=False, lineterminator="\n")
    table.drop(columns=["charges", "epsilon"]).head(20).to_csv(OUT / "new_rows.csv", index=False,
                                                               lineterminator="\n")
    lines = ["# public bounds, fixed before the data are seen", "[label]  # charges in dollars", "lower = 0",
             "upper = 100000", ""]
    for name in table.columns.drop(["charges", "epsilon"]):
        lower, upper = PUBLIC.get(name, (0, 1))     # indicators and the intercept: [0, 1]
        lines += [f"[features.{name}]", f"lower = {lower}", f"upper = {upper}", ""]
    (OUT / "bounds.toml").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
