package assets

import (
	"image"
	"image/color"
	"math"
	"testing"
)

func TestShrinkAverages(t *testing.T) {
	// A one-pixel checkerboard of opaque black and white averages to grey.
	img := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
	for y := 0; y < 1024; y++ {
		for x := 0; x < 1024; x++ {
			v := uint8(0)
			if (x+y)%2 == 0 {
				v = 255
			}
			img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	out := Shrink(img, 64)
	for _, p := range []image.Point{{0, 0}, {31, 17}, {63, 63}} {
		c := out.NRGBAAt(p.X, p.Y)
		if c.A != 255 || c.R < 126 || c.R > 129 || c.R != c.G || c.G != c.B {
			t.Errorf("checkerboard at %v = %v, want opaque mid grey", p, c)
		}
	}

	// Transparent pixels' colour must not bleed in: opaque red beside
	// fully transparent green averages to half-transparent pure red.
	for y := 0; y < 1024; y++ {
		for x := 0; x < 1024; x++ {
			c := color.NRGBA{255, 0, 0, 255}
			if x%2 == 1 {
				c = color.NRGBA{0, 255, 0, 0}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	c := Shrink(img, 32).NRGBAAt(5, 5)
	if c.R != 255 || c.G != 0 || c.B != 0 || c.A < 127 || c.A > 128 {
		t.Errorf("red over transparent green = %v, want (255,0,0,~128)", c)
	}
}

func TestWeightsSumToOne(t *testing.T) {
	for _, tc := range [][2]int{{1024, 32}, {1000, 3}, {1500, 1024}, {7, 7}} {
		for i, cs := range weights(tc[0], tc[1]) {
			var sum float64
			for _, c := range cs {
				sum += float64(c.weight)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Errorf("weights(%d→%d)[%d] sum to %v", tc[0], tc[1], i, sum)
			}
		}
	}
}
