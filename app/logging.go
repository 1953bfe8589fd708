package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"
	"gopkg.in/natefinch/lumberjack.v2"
)

// newLogger logs to a rotating file in dir always, and to stderr in a
// readable form when stderr is a terminal (not under launchd or systemd,
// whose own capture would only duplicate the file).
func newLogger(dir, level string, stderr io.Writer) (zerolog.Logger, io.Closer, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("bad --log-level %q: %w", level, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("create log dir: %w", err)
	}
	file := &lumberjack.Logger{
		Filename:   filepath.Join(dir, "conductor-bridge.log"),
		MaxSize:    10, // MB
		MaxBackups: 3,
		MaxAge:     28, // days
	}
	var w io.Writer = file
	if isTerminal(stderr) {
		// No colours: stderr shows control characters visibly (visible.go).
		w = zerolog.MultiLevelWriter(file, zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05", NoColor: true})
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), file, nil
}

func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
