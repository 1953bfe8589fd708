package assets

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// TestExtensionIDFromKey: the unpacked extension's id is fixed by the
// public key in its manifest, so the bridge can name it in the native host
// manifest and allow-list it before it is installed. The id is worked out
// here the way Chrome does (components/crx_file/id_util.cc, GenerateId:
// SHA-256 of the key's DER bytes, the first 16 bytes in hex, each hex digit
// 0-f written as a letter a-p), not taken from the code's constant.
func TestExtensionIDFromKey(t *testing.T) {
	files, err := Extension()
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil || m.Key == "" {
		t.Fatalf("manifest key: %q, %v", m.Key, err)
	}
	der, err := base64.StdEncoding.DecodeString(m.Key)
	if err != nil {
		t.Fatalf("key is not base64: %v", err)
	}
	if _, err := x509.ParsePKIXPublicKey(der); err != nil {
		t.Fatalf("key is not a DER public key (SubjectPublicKeyInfo): %v", err)
	}
	sum := sha256.Sum256(der)
	id := make([]byte, 0, 32)
	for _, b := range sum[:16] {
		id = append(id, 'a'+b>>4, 'a'+b&0xf)
	}
	if string(id) != ExtensionID {
		t.Errorf("the key's id is %s; ExtensionID says %s", id, ExtensionID)
	}
}
