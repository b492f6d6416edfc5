// Command cnpg-webhook serves CloudNativePG v1.30.0's own admission webhooks, and nothing else, for the cluster
// test (issue 13): the rules CNPG keeps in its operator's webhook rather than in its CRDs (storage shrink,
// image and PostgreSQL major-version changes, Database and Pooler checks, the defaults CNPG writes into a
// Cluster) judge our objects exactly as the operator would.
//
//	cnpg-webhook --listen 127.0.0.1:PORT --cert-dir DIR [--kubeconfig FILE]
//	cnpg-webhook --version
//
// DIR holds tls.crt and tls.key (the caller owns the certificate and the caBundle). On start it prints one
// `serving <path>` line per webhook path, then `ready <address>` once the TLS listener accepts connections, all
// on stdout (logs go to stderr). SIGTERM or SIGINT stops it cleanly.
//
// Nothing here re-implements CNPG. It does what internal/cmd/manager/controller/controller.go (RunController,
// v1.30.0) does, minus everything that is not admission:
//   - the manager is built with CNPG's scheme (internal/scheme BuildWithAllKnownScheme, controller.go line 55)
//     and the webhook server reads tls.crt/tls.key (controller.go lines 182-190);
//   - the webhooks are registered by CNPG's own webhookv1.Setup*WebhookWithManager, in the order of
//     setupWebhooks (controller.go lines 359-385), and /readyz answers OK as in controller.go line 397;
//   - left out: leader election, the metrics and pprof servers, health probes, every reconciler
//     (setupReconcilers), ensurePKI (no Secret written, no webhook configuration patched), the operator's
//     client certificate and the CNPG-i plugin repository. No controller runs, so no informer is started.
//
// What the webhooks read besides the object (all checked in internal/webhook/v1 and api/v1 at v1.30.0):
//   - configuration.Current (api/v1 cluster_defaults.go lines 64, 116, 144; cluster_funcs.go line 484): the
//     operator's configuration, read from the environment as the release manifest's Deployment sets it (see
//     operatorEnv below), then, with --kubeconfig, from the ConfigMap and Secret the Deployment names
//     (--config-map-name / --secret-name cnpg-controller-manager-config), as loadConfiguration does;
//   - utils.HaveVolumeSnapshot() (backup_webhook.go line 126, scheduledbackup_webhook.go line 151): with
//     --kubeconfig it is detected by utils.DetectVolumeSnapshotExist as at controller.go line 226; without it
//     it stays false, which is what the operator detects on a cluster without the snapshot.storage.k8s.io CRDs.
//
// Without --kubeconfig nothing contacts an API server: the webhook handlers have no client, and
// controller-runtime's manager, which needs a rest.Config to be built, never dials it when no controller or
// informer is registered. The placeholder config below points at a closed local port so any unexpected
// call fails loudly instead of reaching a real server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/cloudnative-pg/machinery/pkg/log"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cloudnative-pg/cloudnative-pg/internal/configuration"
	schemeBuilder "github.com/cloudnative-pg/cloudnative-pg/internal/scheme"
	webhookv1 "github.com/cloudnative-pg/cloudnative-pg/internal/webhook/v1"
	"github.com/cloudnative-pg/cloudnative-pg/pkg/utils"
	"github.com/cloudnative-pg/cloudnative-pg/pkg/versions"
)

// operatorEnv is the environment of the manager container of Deployment cnpg-controller-manager in the
// CNPG 1.30.0 release manifest (cnpg-1.30.0.yaml, spec.template.spec.containers[0].env). A value already in
// the environment wins, so a caller can override one.
var operatorEnv = []struct{ name, value, source string }{
	// env OPERATOR_IMAGE_NAME: value ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0
	{"OPERATOR_IMAGE_NAME", "ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0", "env value"},
	// env OPERATOR_NAMESPACE: valueFrom.fieldRef metadata.namespace; the Deployment is in namespace cnpg-system
	{"OPERATOR_NAMESPACE", "cnpg-system", "fieldRef metadata.namespace of the Deployment"},
	// env MONITORING_QUERIES_CONFIGMAP: value cnpg-default-monitoring (the defaulter adds it to Clusters)
	{"MONITORING_QUERIES_CONFIGMAP", "cnpg-default-monitoring", "env value"},
}

// operatorConfigName is the Deployment's --config-map-name and --secret-name argument (both the same name).
const operatorConfigName = "cnpg-controller-manager-config"

// webhookPaths are the clientConfig.service.path values of cnpg-mutating-webhook-configuration and
// cnpg-validating-webhook-configuration in the release manifest. Each must be served, or the binary refuses to
// start. Pooler has no mutating webhook in 1.30.0 (SetupPoolerWebhookWithManager registers a validator only).
var webhookPaths = []string{
	"/mutate-postgresql-cnpg-io-v1-backup",
	"/mutate-postgresql-cnpg-io-v1-cluster",
	"/mutate-postgresql-cnpg-io-v1-database",
	"/mutate-postgresql-cnpg-io-v1-scheduledbackup",
	"/validate-postgresql-cnpg-io-v1-backup",
	"/validate-postgresql-cnpg-io-v1-cluster",
	"/validate-postgresql-cnpg-io-v1-database",
	"/validate-postgresql-cnpg-io-v1-pooler",
	"/validate-postgresql-cnpg-io-v1-scheduledbackup",
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(versions.Version)
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cnpg-webhook:", err)
		os.Exit(1)
	}
}

func run() error {
	// An own flag set: controller-runtime's config package registers its own --kubeconfig on flag.CommandLine.
	flags := flag.NewFlagSet("cnpg-webhook", flag.ContinueOnError)
	kubeconfig := flags.String("kubeconfig", "", "kubeconfig of the API server (optional; see the package comment)")
	listen := flags.String("listen", "", "host:port the HTTPS webhook server listens on (required)")
	certDir := flags.String("cert-dir", "", "directory holding tls.crt and tls.key (required)")
	if err := flags.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *listen == "" || *certDir == "" || flags.NArg() > 0 {
		flags.Usage()
		return errors.New("--listen and --cert-dir are required")
	}
	host, portText, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", *listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port <= 0 || port > 65535 {
		return fmt.Errorf("--listen %q: the port must be 1-65535", *listen)
	}
	for _, f := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Stat(fmt.Sprintf("%s/%s", *certDir, f)); err != nil {
			return fmt.Errorf("--cert-dir: %w", err)
		}
	}

	// CNPG's logging, as cmd/manager/main.go configures it (machinery log.Flags.ConfigureLogging): JSON on
	// stderr, also handed to controller-runtime and klog.
	// The level is the default of CNPG's --log-level flag (info), which this command does not expose.
	log.SetLogLevel(log.InfoLevelString)
	logFlags := &log.Flags{}
	logFlags.ConfigureLogging()

	// configuration.Current was read from the environment at package init; set the Deployment's environment
	// and read it again, the way the operator process starts with it already set.
	for _, e := range operatorEnv {
		if _, ok := os.LookupEnv(e.name); !ok {
			if err := os.Setenv(e.name, e.value); err != nil {
				return err
			}
		}
	}
	configuration.Current = configuration.NewConfiguration()
	conf := configuration.Current

	var restConfig *rest.Config
	if *kubeconfig != "" {
		restConfig, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
		if err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
	} else {
		restConfig = &rest.Config{Host: "https://127.0.0.1:1"}
	}

	scheme := schemeBuilder.BuildWithAllKnownScheme()
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:     host,
			Port:     port,
			CertDir:  *certDir,
			CertName: "tls.crt",
			KeyName:  "tls.key",
		}),
	})
	if err != nil {
		return fmt.Errorf("unable to build the manager: %w", err)
	}

	ctx := ctrl.SetupSignalHandler()
	if *kubeconfig != "" {
		if err := loadFromAPIServer(ctx, restConfig, scheme, conf); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "cnpg-webhook: CNPG %s, operator namespace %s, default PostgreSQL image %s, "+
		"VolumeSnapshot support %t\n", versions.Version, conf.OperatorNamespace, conf.PostgresImageName,
		utils.HaveVolumeSnapshot())

	// setupWebhooks of controller.go, in the same order.
	for _, setup := range []func(ctrl.Manager) error{
		webhookv1.SetupClusterWebhookWithManager,
		webhookv1.SetupBackupWebhookWithManager,
		webhookv1.SetupScheduledBackupWebhookWithManager,
		webhookv1.SetupPoolerWebhookWithManager,
		webhookv1.SetupDatabaseWebhookWithManager,
	} {
		if err := setup(mgr); err != nil {
			return fmt.Errorf("unable to register a webhook: %w", err)
		}
	}
	server := mgr.GetWebhookServer()
	server.WebhookMux().HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprint(w, "OK")
	})
	for _, path := range webhookPaths {
		if _, pattern := server.WebhookMux().Handler(&http.Request{Method: http.MethodPost,
			URL: mustURL(path), Host: "localhost"}); pattern != path {
			return fmt.Errorf("the release manifest names %s, which CNPG v%s's webhooks do not serve",
				path, versions.Version)
		}
		fmt.Printf("serving %s\n", path)
	}

	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()
	checker := server.StartedChecker()
	for {
		select {
		case err := <-errs:
			if err != nil {
				return fmt.Errorf("the webhook server stopped: %w", err)
			}
			return nil
		case <-time.After(50 * time.Millisecond):
		}
		if checker(nil) == nil {
			break
		}
	}
	fmt.Printf("ready %s\n", net.JoinHostPort(host, portText))
	if err := <-errs; err != nil {
		return fmt.Errorf("the webhook server stopped: %w", err)
	}
	return nil
}

// loadFromAPIServer does what RunController does before registering the webhooks and what the webhooks
// later read: loadConfiguration (controller.go lines 422-465: the ConfigMap, then the Secret, each optional,
// the Secret's keys overriding) and DetectVolumeSnapshotExist (controller.go line 226).
func loadFromAPIServer(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, conf *configuration.Data) error {
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("unable to build a client: %w", err)
	}
	key := types.NamespacedName{Namespace: conf.OperatorNamespace, Name: operatorConfigName}
	data := map[string]string{}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, key, &cm); err == nil {
		for k, v := range cm.Data {
			data[k] = v
		}
	} else if !apierrs.IsNotFound(err) {
		return fmt.Errorf("unable to read ConfigMap %s: %w", key, err)
	}
	var secret corev1.Secret
	if err := c.Get(ctx, key, &secret); err == nil {
		for k, v := range secret.Data {
			data[k] = string(v)
		}
	} else if !apierrs.IsNotFound(err) {
		return fmt.Errorf("unable to read Secret %s: %w", key, err)
	}
	if len(data) > 0 {
		conf.ReadConfigMap(data)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("unable to build a discovery client: %w", err)
	}
	if err := utils.DetectVolumeSnapshotExist(dc); err != nil {
		return fmt.Errorf("unable to detect VolumeSnapshot support: %w", err)
	}
	return nil
}

func mustURL(path string) *url.URL {
	u, err := url.Parse(path)
	if err != nil {
		panic(err)
	}
	return u
}
