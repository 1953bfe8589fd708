package nativehost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// HostName is the host's name: the extension passes it to
// chrome.runtime.sendNativeMessage, and each browser looks for
// <HostName>.json in its NativeMessagingHosts folder. (Lowercase letters,
// digits, underscores and dots only, per the native-messaging docs.)
const HostName = "com.conductor_bridge.host"

// Manifest is a native messaging host manifest (native-messaging docs,
// "Native messaging host").
type Manifest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the host binary's absolute path (required on Linux and macOS).
	Path string `json:"path"`
	Type string `json:"type"` // always "stdio"
	// AllowedOrigins are the extensions that may start the host, each
	// "chrome-extension://<id>/" (no wildcards).
	AllowedOrigins []string `json:"allowed_origins"`
}

// NewManifest is the manifest for the host binary at path, allowing the
// extension origins given ("chrome-extension://<id>", with or without the
// trailing slash Chrome's own example has).
func NewManifest(path string, origins []string) Manifest {
	m := Manifest{Name: HostName, Description: "Conductor Bridge: hands its side panel the bridge's port and a browser credential",
		Path: path, Type: "stdio", AllowedOrigins: []string{}}
	for _, o := range origins {
		o = strings.TrimSuffix(o, "/") + "/"
		if !slices.Contains(m.AllowedOrigins, o) {
			m.AllowedOrigins = append(m.AllowedOrigins, o)
		}
	}
	return m
}

// Allows reports whether the manifest lets origin start the host.
func (m Manifest) Allows(origin string) bool {
	return slices.Contains(m.AllowedOrigins, strings.TrimSuffix(origin, "/")+"/")
}

// WriteManifest writes m to path (0644: the browser reads it; it holds no
// secret), creating its folder. It returns the folders it created, outer
// first, so that an uninstall can take away exactly what the install added.
func WriteManifest(path string, m Manifest) (created []string, err error) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !os.IsNotExist(err) || d == filepath.Dir(d) {
			break
		}
		created = append([]string{d}, created...)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("native host manifest: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return created, err
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o644); err != nil {
		return created, fmt.Errorf("native host manifest: %w", err)
	}
	return created, nil
}

// ReadManifest reads the manifest at path.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	b, err := regular.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s is not a native host manifest: %w", path, err)
	}
	return m, nil
}
