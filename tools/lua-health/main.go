// Command lua-health evaluates Argo CD resource health the way the v3.5.1 application controller does, for
// the tests of lib/constructs/argocd/health-checks.ts.
//
// Input (stdin, JSON): {"argocdCm": {<argocd-cm data>}, "objects": [<live object>, ...]}.
// Output (stdout, JSON): one {"status", "message", "error"} per object, in order.
//
// Nothing here re-implements Argo CD. Each step is the upstream code at the pinned tag:
//   - argocd-cm is parsed into resource overrides by util/settings SettingsManager.GetResourceOverrides, as the
//     controller does in controller/cache/cache.go (v3.5.1, lines 262-267), here over a fake clientset that
//     holds only argocd-cm;
//   - health comes from gitops-engine health.GetResourceHealth with lua.ResourceHealthOverrides, as in
//     controller/cache/cache.go line 562 and controller/health.go lines 47-55: the Lua runs in util/lua's
//     sandbox (util/lua/lua.go lines 76-104: SkipOpenLibs unless useOpenLibs, then only package, base, table
//     and a safe os; a 1 s timeout).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"
)

const namespace = "argocd"

type input struct {
	ArgocdCm map[string]string `json:"argocdCm"`
	Objects  []map[string]any  `json:"objects"`
}

type result struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(argoCDVersion())
		return
	}
	// The settings manager logs at info level; only the JSON belongs on stdout, and stderr stays quiet.
	log.SetLevel(log.WarnLevel)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lua-health:", err)
		os.Exit(1)
	}
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "argocd-cm", Namespace: namespace,
			// The settings manager only sees ConfigMaps with this label, as install.yaml's argocd-cm has.
			Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"},
		},
		Data: in.ArgocdCm,
	}
	mgr := settings.NewSettingsManager(context.Background(), fake.NewClientset(cm), namespace)
	overrides, err := mgr.GetResourceOverrides()
	if err != nil {
		return fmt.Errorf("argocd-cm: %w", err)
	}
	results := make([]result, 0, len(in.Objects))
	for _, object := range in.Objects {
		obj := &unstructured.Unstructured{Object: object}
		hs, err := health.GetResourceHealth(obj, lua.ResourceHealthOverrides(overrides))
		r := result{}
		if hs != nil {
			r.Status, r.Message = string(hs.Status), hs.Message
		}
		if err != nil {
			r.Error = err.Error()
		}
		results = append(results, r)
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}

// argoCDVersion is the argo-cd module version linked in, e.g. "github.com/argoproj/argo-cd/v3 v3.5.1".
func argoCDVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/argoproj/argo-cd/v3" {
				return dep.Path + " " + dep.Version
			}
		}
	}
	return "github.com/argoproj/argo-cd/v3 (unknown version)"
}
