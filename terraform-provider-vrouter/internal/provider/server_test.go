package provider

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// The acceptance tests (TF_ACC=1) run OpenTofu against a real server: the repository's bin/vrouter on the
// simulated hypervisor, started here on free ports with a fresh data directory, unless VROUTER_ENDPOINT
// names one already running.

var (
	snmpPort  int            // the server's SNMP port (0: unknown, the drift test skips)
	ownServer bool           // started by the tests, with serverSettings
	api       *client.Client // the tests' own view of the server, to check what the provider left behind
)

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		os.Exit(m.Run())
	}
	defaults := map[string]string{
		// OpenTofu, built by .ci/install-test-deps; the provider's address is OpenTofu's registry's.
		"TF_ACC_TERRAFORM_PATH":     "/opt/vrouter-go/bin/tofu",
		"TF_ACC_PROVIDER_HOST":      "registry.opentofu.org",
		"TF_ACC_PROVIDER_NAMESPACE": "vrouter",
		"VROUTER_USERNAME":          "admin",
		"VROUTER_PASSWORD":          "admin",
	}
	for k, v := range defaults {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	stop := func() {}
	snmpPort, _ = strconv.Atoi(os.Getenv("VROUTER_SNMP_PORT")) // of a server already running, for the drift test
	if os.Getenv("VROUTER_ENDPOINT") == "" {
		var err error
		if stop, err = startServer(); err != nil {
			fmt.Fprintln(os.Stderr, "cannot start bin/vrouter:", err)
			os.Exit(1)
		}
	}
	var err error
	api, err = client.New(client.Config{Endpoint: os.Getenv("VROUTER_ENDPOINT"),
		Username: os.Getenv("VROUTER_USERNAME"), Password: os.Getenv("VROUTER_PASSWORD"), Timeout: time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// The started server's settings: a host with a capacity to report, and a tenant with a quota of one VR.
const serverSettings = `user.admin = operator:admin
user.acme = operator@acme:acme
tenant.acme = vrs=1
sim.host-cpus = 8
sim.host-memory = 16384
`

func startServer() (stop func(), err error) {
	conf, err := os.CreateTemp("", "vrouter-tf-*.properties")
	if err != nil {
		return nil, err
	}
	defer os.Remove(conf.Name()) // read at start-up
	if _, err := conf.WriteString(serverSettings); err != nil {
		return nil, err
	}
	conf.Close()
	endpoint, snmp, stop, err := launch("http", "--config", conf.Name())
	if err != nil {
		return nil, err
	}
	snmpPort, ownServer = snmp, true
	os.Setenv("VROUTER_ENDPOINT", endpoint)
	return stop, nil
}

// launch starts the repository's bin/vrouter on free ports with a fresh data directory and extra arguments,
// and waits until it is ready; scheme is how its REST port answers (https with rest.tls.keystore).
func launch(scheme string, args ...string) (endpoint string, snmp int, stop func(), err error) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		return "", 0, nil, err
	}
	dir, err := os.MkdirTemp("", "vrouter-tf-")
	if err != nil {
		return "", 0, nil, err
	}
	rest, err := freePort("tcp")
	if err != nil {
		return "", 0, nil, err
	}
	netconf, err := freePort("tcp")
	if err != nil {
		return "", 0, nil, err
	}
	if snmp, err = freePort("udp"); err != nil {
		return "", 0, nil, err
	}
	serverLog := filepath.Join(dir, "server.log")
	out, err := os.Create(serverLog)
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(filepath.Join(root, "bin", "vrouter"), append([]string{"--rest-port", strconv.Itoa(rest),
		"--snmp-port", strconv.Itoa(snmp), "--netconf-port", strconv.Itoa(netconf), "--gnmi-port", "off",
		"--data-dir", filepath.Join(dir, "data")}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	endpoint = fmt.Sprintf("%s://127.0.0.1:%d", scheme, rest)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps the process: stop signals it and waits for this
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		<-exited
		out.Close()
		os.RemoveAll(dir)
	}
	// Readiness only: whether the certificate is trusted is the tests' business.
	probe := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec
	deadline := time.After(2 * time.Minute)
	for {
		if resp, err := probe.Get(endpoint + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return endpoint, snmp, stop, nil
			}
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(serverLog)
			os.RemoveAll(dir)
			return "", 0, nil, fmt.Errorf("the server exited (%v):\n%s", err, log)
		case <-deadline:
			stop()
			return "", 0, nil, fmt.Errorf("the server was not ready within two minutes")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func freePort(network string) (int, error) {
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// routersNamed counts the server's VRs with that name.
func routersNamed(name string) (int, error) {
	_, found, err := api.FindRouter(context.Background(), name)
	if found {
		return 1, err
	}
	return 0, err
}

// needServer skips a test that calls the server itself unless acceptance tests run (TF_ACC=1).
func needServer(t *testing.T) {
	if api == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
}

// needOwnServer skips a test that needs the server the tests start (its settings, or bin/vrouter).
func needOwnServer(t *testing.T) {
	needServer(t)
	if !ownServer {
		t.Skip("the tests use a server they did not start (VROUTER_ENDPOINT)")
	}
}
