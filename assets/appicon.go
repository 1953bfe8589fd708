package assets

import (
	"bytes"
	"image/png"
	"sync"
)

var appIcons sync.Map // size → []byte

// AppIconPNG is the app icon scaled to size×size pixels, made once per size
// (notifications, the Chrome extension's icons).
func AppIconPNG(size int) []byte {
	if b, ok := appIcons.Load(size); ok {
		return b.([]byte)
	}
	src, err := png.Decode(bytes.NewReader(AppIcon))
	if err != nil {
		panic(err) // an embedded file the assets tests decode
	}
	var buf bytes.Buffer
	if size >= src.Bounds().Dx() {
		buf.Write(AppIcon)
	} else if err := png.Encode(&buf, Shrink(src, size)); err != nil {
		panic(err) // encoding to memory: cannot fail
	}
	b, _ := appIcons.LoadOrStore(size, buf.Bytes())
	return b.([]byte)
}
