#!/usr/bin/env python3
"""Writes the layout templates in layouts/ (float, grid, screenShare, pk).

The templates are data: canvas-relative cells (x, y, w, h as fractions of the canvas), in
variants by user count and orientation. mixer reads the JSON; this script only spares
typing the larger variants by hand. Run it from the repository root after changing it.
"""
import json
import math
import re

def cell(x, y, w, h, z=0, fill=0):
    c = {"x": round(x, 4), "y": round(y, 4), "w": round(w, 4), "h": round(h, 4)}
    if z:
        c["zOrder"] = z
    if fill:
        c["fillMode"] = fill
    return c

def grid_cells(columns, rows, x=0.0, y=0.0, w=1.0, h=1.0, z=0):
    return [cell(x + c * w / columns, y + r * h / rows, w / columns, h / rows, z)
            for r in range(rows) for c in range(columns)]

def write(name, description, variants):
    text = json.dumps({"name": name, "description": description, "variants": variants}, indent=2, ensure_ascii=False)
    # One cell per line: {"x": …, "y": …, "w": …, "h": …}.
    text = re.sub(r"\{\s+([^{}\[\]]*?)\s+\}", lambda m: "{ " + re.sub(r"\s*\n\s*", " ", m.group(1)) + " }", text)
    with open(f"layouts/{name}.json", "w") as out:
        out.write(text + "\n")

# grid: equal cells; wider than tall in landscape, taller than wide in portrait.
grid = [{"maxUsers": 1, "cells": grid_cells(1, 1)}]
for users, (a, b) in [(2, (2, 1)), (4, (2, 2)), (6, (3, 2)), (9, (3, 3)), (12, (4, 3)), (16, (4, 4))]:
    grid.append({"maxUsers": users, "orientation": "landscape", "cells": grid_cells(a, b)})
    grid.append({"maxUsers": users, "orientation": "portrait", "cells": grid_cells(b, a)})
write("grid", "Equal cells for 1–16 users, filled row by row; columns ≥ rows on a landscape canvas, rows ≥ columns on a portrait one.", grid)

# float: the first user fills the canvas; the others float in columns at the right,
# bottom-up, like the e-commerce co-host scene (135×240 windows on 540×960).
def float_variant(users, size, per_column, top):
    cells = [cell(0, 0, 1, 1)]
    step = size * 1.02
    for i in range(users - 1):
        column, row = divmod(i, per_column)
        cells.append(cell(1 - 0.01 - size - column * step, top + row * step, size, size, z=1))
    return {"maxUsers": users, "cells": cells}
write("float", "One large picture (the first user) with the others in small windows floating in columns at the right, like the e-commerce co-host scene.",
      [float_variant(1, 0.25, 3, 0.22), float_variant(4, 0.25, 3, 0.22), float_variant(7, 0.25, 3, 0.22),
       float_variant(16, 0.18, 5, 0.05)])

# screenShare: the shared screen large on the left (whole picture shown), the others in a
# column (two for many users) on the right.
def share_variant(users):
    if users == 1:
        return {"maxUsers": 1, "cells": [cell(0, 0, 1, 1, fill=1)]}
    others = users - 1
    columns = 1 if others <= 4 else 2
    rows = max(4, math.ceil(others / columns))
    side = 0.25 if columns == 1 else 0.3
    cells = [cell(0, 0, 1 - side, 1, fill=1)]
    cells += grid_cells(columns, rows, x=1 - side, w=side)[:others]
    return {"maxUsers": users, "cells": cells}
write("screenShare", "A large picture on the left (the first user, usually a shared screen, shown whole) and the others in small cells on the right.",
      [share_variant(n) for n in (1, 5, 9, 16)])

# pk: two anchors side by side; guests in small windows along the bottom.
def pk_variant(users):
    if users == 1:
        return {"maxUsers": 1, "cells": [cell(0, 0, 1, 1)]}
    cells = [cell(0, 0, 0.5, 1), cell(0.5, 0, 0.5, 1)]
    guests = users - 2
    if guests:
        per_row = 2 if guests <= 2 else 7
        size = 0.25 if guests <= 2 else 1 / 7
        for i in range(guests):
            row, column = divmod(i, per_row)
            x = (0.25 - size / 2 + column * 0.5) if guests <= 2 else column * size
            cells.append(cell(x, 1 - (row + 1) * size * 1.4, size, size * 1.4, z=1))
    return {"maxUsers": users, "cells": cells}
write("pk", "Cross-room PK: the two anchors side by side, each on half the canvas; further users (guests) in small windows along the bottom.",
      [pk_variant(n) for n in (1, 2, 4, 16)])
