"""Draw the style page's pictures (docs/images/style-*.png): palette, colour maps with their lightness, type scale.

Run from the repository root: ``.venv/bin/python docs/make_style_images.py``. Drawn with PIL from the
palette module itself, so the page shows the colours the lesson uses.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scenes.kit import palette, text

OUT = Path(__file__).parent / "images"
FONT_FILE = "/usr/share/fonts/opentype/inter/Inter-Regular.otf"  # Debian fonts-inter
BG = palette.BACKGROUND.to_hex()
MUTED = palette.MUTED.to_hex()
# manim font size → em in pixels of a 480p frame (a capital is 0.606 px per size; Inter's is 0.727 em)
PX_PER_SIZE = 0.606 / 0.727


def font(size: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT_FILE, max(int(round(size)), 1))


def lightness(rgb: np.ndarray) -> float:
    """CIELAB L* of an sRGB colour in [0, 1]."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    y = float(lin @ [0.2126729, 0.7151522, 0.0721750])
    f = y ** (1 / 3) if y > (6 / 29) ** 3 else y / (3 * (6 / 29) ** 2) + 4 / 29
    return 116 * f - 16


def palette_image() -> Image.Image:
    swatches = [
        ("Query", palette.QUERY),
        ("Key", palette.KEY),
        ("Value", palette.VALUE),
        ("fruit", palette.FRUIT),
        ("tech", palette.TECH),
        ("highlight", palette.HIGHLIGHT),
        ("alert", palette.ALERT),
        ("text", palette.TEXT),
        ("muted", palette.MUTED),
    ]
    image = Image.new("RGB", (110 * len(swatches) + 20, 130), BG)
    draw = ImageDraw.Draw(image)
    for i, (name, colour) in enumerate(swatches):
        x = 20 + 110 * i
        draw.rounded_rectangle([x, 16, x + 90, 66], radius=8, fill=colour.to_hex())
        draw.text((x, 74), name, fill=colour.to_hex(), font=font(17))
        draw.text((x, 98), colour.to_hex().upper(), fill=MUTED, font=font(14))
    return image


def map_image(cmap, lo: float, hi: float, title: str) -> Image.Image:
    """A strip of the map and, under it, its L* along the same axis."""
    width, left, strip, plot = 640, 50, 50, 170
    image = Image.new("RGB", (width + left + 30, 44 + strip + plot + 40), BG)
    draw = ImageDraw.Draw(image)
    draw.text((left, 10), title, fill="#FFFFFF", font=font(18))
    ts = np.linspace(lo, hi, width)
    colours = [np.array(cmap(t).to_rgb()) for t in ts]
    for x, c in enumerate(colours):
        draw.line([(left + x, 44), (left + x, 44 + strip)], fill=tuple(int(round(v * 255)) for v in c))
    top = 44 + strip + 14
    ls = [lightness(c) for c in colours]
    for level in (0, 25, 50, 75, 100):
        y = top + plot - level / 100 * plot
        draw.line([(left, y), (left + width, y)], fill="#2A2A2A")
        draw.text((8, y - 8), f"{level}", fill=MUTED, font=font(13))
    draw.line([(left + x, top + plot - v / 100 * plot) for x, v in enumerate(ls)], fill="#FFFFFF", width=3)
    back = lightness(np.array(palette.BACKGROUND.to_rgb()))
    y = top + plot - back / 100 * plot
    draw.line([(left, y), (left + width, y)], fill=MUTED, width=1)
    draw.text((left + 6, y - 18), f"background L* {back:.0f}", fill=MUTED, font=font(13))
    draw.text((left, top + plot + 10), f"{lo:g}", fill=MUTED, font=font(14))
    draw.text((left + width - 20, top + plot + 10), f"{hi:g}", fill=MUTED, font=font(14))
    draw.text(
        (left + width // 2 - 110, top + plot + 10),
        f"L* from {ls[0]:.0f} (lowest {min(ls):.0f}) to {ls[-1]:.0f}",
        fill=MUTED,
        font=font(14),
    )
    return image


def type_image() -> Image.Image:
    steps = [("TITLE", text.TITLE), ("BODY", text.BODY), ("LABEL", text.LABEL), ("CELL", text.CELL)]
    steps.append(("minimum", text.TINY))
    image = Image.new("RGB", (820, 40 + sum(int(s * PX_PER_SIZE * 2) + 16 for _, s in steps)), BG)
    draw = ImageDraw.Draw(image)
    y = 20
    for name, size in steps:
        px = size * PX_PER_SIZE * 2  # drawn at twice 480p so the page stays readable
        draw.text((20, y), f"{name} {size}", fill=MUTED, font=font(16))
        draw.text((190, y), "apple phones 0.26 Softmax", fill="#FFFFFF", font=font(px))
        y += int(px) + 16
    return image


def main() -> None:
    OUT.mkdir(exist_ok=True)
    palette_image().save(OUT / "style-palette.png")
    map_image(palette.heat, 0.0, 1.0, "heat(t): weights and scores, t from low (0) to high (1)").save(
        OUT / "style-heat.png"
    )
    map_image(palette.diverging, -1.0, 1.0, "diverging(t): signed values, zero in the middle").save(
        OUT / "style-diverging.png"
    )
    type_image().save(OUT / "style-type.png")


if __name__ == "__main__":
    main()
