package webhook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// secretSync copies the rotator's Secret into the cert directory, as kubelet does for
// a mounted Secret in a pod. It exists for runs outside the cluster (the local
// control plane of the e2e suite and `make demo`), where nothing else would, and
// keeps rotation working there: the webhook server's cert watcher reloads the files.
type secretSync struct {
	reader client.Reader
	key    types.NamespacedName
	dir    string
	log    logr.Logger
}

// Start polls the Secret until ctx ends; rotation happens at most every few minutes,
// so a one-second poll is cheap and keeps the files fresh.
func (s *secretSync) Start(ctx context.Context) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		s.syncOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// NeedLeaderElection is false: every replica serves and needs its own files.
func (s *secretSync) NeedLeaderElection() bool { return false }

func (s *secretSync) syncOnce(ctx context.Context) {
	sec := &corev1.Secret{}
	if err := s.reader.Get(ctx, s.key, sec); err != nil {
		return
	}
	crt, key := sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 || len(key) == 0 {
		return
	}
	// Key first: the watcher reloads on the certificate and needs the matching key.
	changed := false
	for _, f := range []struct {
		name string
		data []byte
	}{{corev1.TLSPrivateKeyKey, key}, {corev1.TLSCertKey, crt}} {
		path := filepath.Join(s.dir, f.name)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, f.data) {
			continue
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, f.data, 0o600); err != nil {
			s.log.Error(err, "writing certificate file", "path", path)
			return
		}
		if err := os.Rename(tmp, path); err != nil {
			s.log.Error(err, "replacing certificate file", "path", path)
			return
		}
		changed = true
	}
	if changed {
		s.log.Info("serving certificate written", "dir", s.dir)
	}
}
