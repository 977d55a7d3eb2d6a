"""Player colours, the follower (meeple) shape and the label font shared by both renderers."""

from __future__ import annotations

from PIL import ImageDraw, ImageFont

# seat 0..4: red, blue, yellow, green, black (the box colours)
PLAYER_COLOURS = ((215, 40, 40), (40, 90, 210), (240, 200, 0), (40, 160, 60), (30, 30, 30))


def label_font(size: int) -> ImageFont.ImageFont:
    """Pillow's default font at ``size`` pixels (its fixed size on old Pillow)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # old Pillow
        return ImageFont.load_default()


def draw_meeple(
    draw: ImageDraw.ImageDraw, x: float, y: float, size: float, colour, lying: bool = False
) -> None:
    """A follower with its top-left corner at (x, y); ``lying`` draws a farmer on its back."""
    s = size
    if lying:
        head = (x + 0.02 * s, y + 0.32 * s, x + 0.3 * s, y + 0.6 * s)
        body = [
            (x + 0.25 * s, y + 0.3 * s),
            (x + 0.95 * s, y + 0.22 * s),
            (x + 0.95 * s, y + 0.42 * s),
            (x + 0.7 * s, y + 0.46 * s),
            (x + 0.95 * s, y + 0.5 * s),
            (x + 0.95 * s, y + 0.7 * s),
            (x + 0.25 * s, y + 0.62 * s),
        ]
    else:
        head = (x + 0.33 * s, y, x + 0.67 * s, y + 0.34 * s)
        body = [
            (x + 0.3 * s, y + 0.3 * s),
            (x + 0.7 * s, y + 0.3 * s),
            (x + s, y + 0.5 * s),
            (x + 0.68 * s, y + 0.55 * s),
            (x + 0.9 * s, y + s),
            (x + 0.55 * s, y + s),
            (x + 0.5 * s, y + 0.78 * s),
            (x + 0.45 * s, y + s),
            (x + 0.1 * s, y + s),
            (x + 0.32 * s, y + 0.55 * s),
            (x, y + 0.5 * s),
        ]
    draw.polygon(body, fill=colour, outline=(0, 0, 0))
    draw.ellipse(head, fill=colour, outline=(0, 0, 0))
