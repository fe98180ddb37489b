// Package plots draws Macroscope's static figures with gonum/plot: the
// spatiotemporal overview, quality curves, moment displays and layouts.
// Every figure renders to PNG or SVG bytes, so the same code serves files,
// the command line and Jupyter.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Format is an output image format.
type Format string

// The supported formats.
const (
	PNG Format = "png"
	SVG Format = "svg"
	PDF Format = "pdf"
)

// ParseFormat accepts "png", "svg" or "pdf" in any case, or a file name
// ending so.
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(s)
	for _, f := range []Format{PNG, SVG, PDF} {
		if s == string(f) || strings.HasSuffix(s, "."+string(f)) {
			return f, nil
		}
	}
	return "", errs.Argument("format", "%q is not png, svg or pdf", s)
}

// dpi of PNG output: sizes are given in points (1/72 in), so at 96 dpi a
// 720 pt wide figure is 960 pixels wide.
const dpi = 96

// Render draws a figure of the given size (in points) and encodes it.
// draw is called with a canvas covering the whole figure.
func Render(width, height vg.Length, format Format, drawFn func(draw.Canvas)) ([]byte, error) {
	if width <= 0 || height <= 0 {
		return nil, errs.Argument("size", "width and height must be positive, got %v x %v", width, height)
	}
	if err := CheckSize(width, height); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
		drawFn(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("encoding PNG: %w", err)
		}
	case SVG:
		c := vgsvg.New(width, height)
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		drawFn(dc)
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("encoding SVG: %w", err)
		}
	case PDF:
		c := vgpdf.New(width, height)
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		drawFn(dc)
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("encoding PDF: %w", err)
		}
	default:
		return nil, errs.Argument("format", "unknown image format %q", format)
	}
	return buf.Bytes(), nil
}

// RenderPlot renders a single gonum plot.
func RenderPlot(p *plot.Plot, width, height vg.Length, format Format) ([]byte, error) {
	return Render(width, height, format, p.Draw)
}
