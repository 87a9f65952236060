package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccTLS: a server on HTTPS with a self-signed certificate (made by the JDK's keytool, as an operator
// would), reached with ca_file naming that certificate (pinned), refused without it, reached with insecure.
func TestAccTLS(t *testing.T) {
	needOwnServer(t)
	dir := t.TempDir()
	keystore, pem := filepath.Join(dir, "rest.p12"), filepath.Join(dir, "rest.pem")
	keytool := func(args ...string) {
		if out, err := exec.Command("keytool", args...).CombinedOutput(); err != nil {
			t.Fatalf("keytool %v: %v\n%s", args, err, out)
		}
	}
	keytool("-genkeypair", "-keystore", keystore, "-storetype", "PKCS12", "-storepass", "changeit", "-alias", "rest",
		"-keyalg", "EC", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2")
	keytool("-exportcert", "-rfc", "-keystore", keystore, "-storepass", "changeit", "-alias", "rest", "-file", pem)
	conf := filepath.Join(dir, "vrouter.properties")
	if err := os.WriteFile(conf, []byte("rest.tls.keystore = "+keystore+"\nrest.tls.keystore-password = changeit\n"+
		"user.admin = operator:admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint, _, stop, err := launch("https", "--config", conf)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	read := func(tlsSettings string) string {
		return templatesThrough(`endpoint = "` + endpoint + `"
  ` + tlsSettings)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: read(`ca_file = "` + pem + `"`),
				Check:  resource.TestCheckResourceAttr("data.vrouter_templates.t", "templates.0", "vyos"),
			},
			{
				Config:      read(""),
				ExpectError: regexp.MustCompile(`certificate signed by unknown authority`),
			},
			{
				Config: read("insecure = true"),
				Check:  resource.TestCheckResourceAttr("data.vrouter_templates.t", "user", "admin"),
			},
		},
	})
}

// TestAccProviderSettings: settings that cannot work are refused before anything is called.
func TestAccProviderSettings(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: templatesThrough(`timeout = "soon"`), ExpectError: regexp.MustCompile(`timeout is a positive duration`)},
			{Config: templatesThrough(`endpoint = "127.0.0.1:8080"`), ExpectError: regexp.MustCompile(`is not an http or https URL`)},
			{Config: templatesThrough(`ca_file = "/nonexistent/ca.pem"`), ExpectError: regexp.MustCompile(`ca_file`)},
		},
	})
}

// templatesThrough is a configuration that reads data.vrouter_templates.t through a provider with these settings.
func templatesThrough(settings string) string {
	return config(`
provider "vrouter" {
  alias = "other"
  ` + settings + `
}
data "vrouter_templates" "t" { provider = vrouter.other }`)
}
