package provider

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

var factories = map[string]func() (tfprotov6.ProviderServer, error){
	"vrouter": providerserver.NewProtocol6WithError(New("test")()),
}

// config is a configuration for the test server (the provider reads VROUTER_* from the environment).
func config(body string) string {
	return `
terraform {
  required_providers {
    vrouter = { source = "registry.opentofu.org/vrouter/vrouter" }
  }
}
provider "vrouter" {}
` + body
}

func edge(description, template string, cpus int, rateOut string) string {
	return config(fmt.Sprintf(`
resource "vrouter_router" "edge" {
  name        = "acc-edge"
  description = %q
  template    = %q
  cpus        = %d
  interfaces = [
    { parent = "br-acc", address = "192.0.2.1", prefix_length = 25 %s },
    { link_type = "vxlan", parent = "eth1", vni = 4242, remote = "203.0.113.2", address = "192.0.2.129", prefix_length = 30 },
  ]
}`, description, template, cpus, rateOut))
}

// noneNamed checks that the server has no VR of any of these names.
func noneNamed(names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			if n, err := routersNamed(name); err != nil || n != 0 {
				return fmt.Errorf("VR %s: %d left on the server (%v)", name, n, err)
			}
		}
		return nil
	}
}

// onServer checks the VR as the server has it, read over REST by the test itself.
func onServer(name string, check func(client.Router) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		r, found, err := api.FindRouter(context.Background(), name)
		if err != nil || !found {
			return fmt.Errorf("VR %s not on the server (%v)", name, err)
		}
		return check(r)
	}
}

// TestAccRouterLifecycle: create, change in place (a restart for the CPUs), replace for a template, import by
// index and by name, a name changed over SNMP shown as drift and put back, destroy leaving nothing.
func TestAccRouterLifecycle(t *testing.T) {
	var uuid string
	const res = "vrouter_router.edge"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noneNamed("acc-edge"),
		Steps: []resource.TestStep{
			{
				Config: edge("first", "vyos", 1, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrSet(res, "vm_index"),
					resource.TestCheckResourceAttr(res, "oper_state", "running"),
					resource.TestCheckResourceAttr(res, "cpu_weight", "100"),
					resource.TestCheckResourceAttr(res, "interfaces.0.link_type", "bridge"),
					resource.TestCheckResourceAttr(res, "interfaces.1.vni", "4242"),
					resource.TestMatchResourceAttr(res, "interfaces.0.mac", macPattern),
					resource.TestMatchResourceAttr(res, "interfaces.1.mac", macPattern),
					resource.TestCheckResourceAttrWith(res, "uuid", func(v string) error {
						uuid = v
						if v == "" {
							return fmt.Errorf("no vmUUID")
						}
						return nil
					}),
					onServer("acc-edge", func(r client.Router) error {
						if r.VmEntry.VmOperState != "running" || *r.VmNetworkConfigTable[1].VmNetworkConfigLinkType != "vxlan" {
							return fmt.Errorf("on the server: %+v", r)
						}
						return nil
					}),
				),
			},
			{
				// In place: a description, a rate (live) and the CPUs (stop, resize, start).
				Config: edge("second", "vyos", 2, `, rate_out = 20000`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(res, "cpus", "2"),
					resource.TestCheckResourceAttr(res, "oper_state", "running"),
					resource.TestCheckResourceAttr(res, "interfaces.0.rate_out", "20000"),
					resource.TestCheckResourceAttrWith(res, "uuid", func(v string) error {
						if v != uuid {
							return fmt.Errorf("updated in place, yet the UUID went from %s to %s", uuid, v)
						}
						return nil
					}),
					onServer("acc-edge", func(r client.Router) error {
						if *r.VmConfigCpuNumber != 2 || *r.VmConfigDescription != "second" || r.VmAdminState != "running" {
							return fmt.Errorf("on the server: %+v", r)
						}
						return nil
					}),
				),
			},
			{
				// The template cannot change on an existing VR: the plan replaces it.
				Config: edge("second", "openwrt", 2, `, rate_out = 20000`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(res, "template", "openwrt"),
					onServer("acc-edge", func(r client.Router) error {
						if r.VmConfigTemplate != "openwrt" {
							return fmt.Errorf("template on the server: %s", r.VmConfigTemplate)
						}
						return nil
					}),
				),
			},
			{ResourceName: res, ImportState: true, ImportStateVerify: true},
			{ResourceName: res, ImportState: true, ImportStateVerify: true, ImportStateId: "acc-edge"},
			{
				// Renamed behind the tool's back over SNMP (vmName, NEW-VMM-MIB vmConfigEntry 1): the plan shows
				// the name going back, and the apply puts it back.
				PreConfig: func() {
					r, _, err := api.FindRouter(context.Background(), "acc-edge")
					if err != nil || r.VmIndex == nil {
						t.Fatalf("acc-edge: %v", err)
					}
					snmpset(t, "1.3.6.1.3.7666.1.12.1.1."+strconv.FormatInt(*r.VmIndex, 10), "s", "acc-renamed")
				},
				Config: edge("second", "openwrt", 2, `, rate_out = 20000`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(res, "name", "acc-edge"),
					noneNamed("acc-renamed"),
				),
			},
		},
	})
}

func snmpset(t *testing.T, args ...string) {
	t.Helper()
	if snmpPort == 0 {
		t.Skip("no SNMP port: the server was not started by the test")
	}
	cmd := append([]string{"-v2c", "-c", "private", "127.0.0.1:" + strconv.Itoa(snmpPort)}, args...)
	if out, err := exec.Command("snmpset", cmd...).CombinedOutput(); err != nil {
		t.Fatalf("snmpset %v: %v\n%s", cmd, err, out)
	}
}

// TestAccRefusedApply: a VR the server refuses (a name another VR has, a tenant's quota, a loopback address) fails the apply
// with the server's problem detail and leaves nothing behind, on the server or in the state.
func TestAccRefusedApply(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	taken, _, _, err := api.CreateRouter(ctx, client.Router{VmName: "acc-taken"}, client.NewIdempotencyKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = api.DeleteRouter(ctx, *taken.VmIndex) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy: func(*terraform.State) error {
			if n, err := routersNamed("acc-taken"); err != nil || n != 1 {
				return fmt.Errorf("the VR made outside the configuration: %d (%v)", n, err)
			}
			return noneNamed("acc-loopback", "acc-quota-0", "acc-quota-1")(nil)
		},
		Steps: []resource.TestStep{
			{
				Config:      config(`resource "vrouter_router" "dup" { name = "acc-taken" }`),
				ExpectError: regexp.MustCompile(`a VR named 'acc-taken' already exists`),
			},
			{
				Config: config(`resource "vrouter_router" "bad" {
  name       = "acc-loopback"
  interfaces = [{ parent = "br-acc", address = "127.0.0.1" }]
}`),
				ExpectError: regexp.MustCompile(`(?s)'127.0.0.1' is a loopback address.*interfaces\.address`),
			},
			{
				// The tenant acme may have one VR (serverSettings): its user's second is refused, naming the quota.
				// Last, as the VR the quota lets through is destroyed with this configuration's provider.
				SkipFunc: func() (bool, error) { return !ownServer, nil },
				Config: config(`
provider "vrouter" {
  alias    = "acme"
  username = "acme"
  password = "acme"
}
resource "vrouter_router" "quota" {
  provider = vrouter.acme
  count    = 2
  name     = "acc-quota-${count.index}"
}`),
				ExpectError: regexp.MustCompile(`(?s)tenant 'acme' may have 1 VRs? \(tenant\.acme vrs\)`),
			},
		},
	})
}

// TestAccIdempotentCreate: the same creation sent twice under one Idempotency-Key (a retry after a lost
// answer) makes one VR, and the second answer is the first's.
func TestAccIdempotentCreate(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	key := client.NewIdempotencyKey()
	first, _, _, err := api.CreateRouter(ctx, client.Router{VmName: "acc-once"}, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = api.DeleteRouter(ctx, *first.VmIndex) })
	again, _, _, err := api.CreateRouter(ctx, client.Router{VmName: "acc-once"}, key)
	if err != nil {
		t.Fatalf("the retry was refused: %v", err)
	}
	if *again.VmIndex != *first.VmIndex {
		t.Errorf("the retry made VR %d besides %d", *again.VmIndex, *first.VmIndex)
	}
}

// TestAccDataSources: the templates the simulated driver offers and the hypervisor's capacity.
func TestAccDataSources(t *testing.T) {
	needOwnServer(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: config(`
data "vrouter_templates" "t" {}
data "vrouter_hypervisor" "h" {}
data "vrouter_tenants" "all" {}`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.vrouter_templates.t", "templates.0", "vyos"),
				resource.TestCheckTypeSetElemAttr("data.vrouter_templates.t", "templates.*", "openwrt"),
				resource.TestCheckResourceAttr("data.vrouter_templates.t", "user", "admin"),
				resource.TestCheckResourceAttr("data.vrouter_hypervisor.h", "software", "vrouter simulated hypervisor"),
				// As serverSettings declare the simulated host.
				resource.TestCheckResourceAttr("data.vrouter_hypervisor.h", "cpus", "8"),
				resource.TestCheckResourceAttr("data.vrouter_hypervisor.h", "memory", "16384"),
				resource.TestCheckResourceAttrSet("data.vrouter_hypervisor.h", "committed_memory"),
				// As serverSettings declare tenant acme: one VR at most, the other quotas unlimited.
				resource.TestCheckResourceAttr("data.vrouter_tenants.all", "tenants.#", "1"),
				resource.TestCheckResourceAttr("data.vrouter_tenants.all", "tenants.0.name", "acme"),
				resource.TestCheckResourceAttr("data.vrouter_tenants.all", "tenants.0.quota_vrs", "1"),
				resource.TestCheckNoResourceAttr("data.vrouter_tenants.all", "tenants.0.quota_vcpus"),
				resource.TestCheckResourceAttrSet("data.vrouter_tenants.all", "tenants.0.vrs"),
			),
		}},
	})
}

// TestAccStaleETagRefused: a change sent with the ETag of an earlier read, after the VR changed over SNMP,
// is refused (412) and changes nothing: what the provider's update relies on between refresh and apply.
func TestAccStaleETagRefused(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	vr, etag, _, err := api.CreateRouter(ctx, client.Router{VmName: "acc-etag"}, client.NewIdempotencyKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = api.DeleteRouter(ctx, *vr.VmIndex) })
	snmpset(t, "1.3.6.1.3.7666.1.12.1.1."+strconv.FormatInt(*vr.VmIndex, 10), "s", "acc-etag-snmp")
	_, _, err = api.PatchRouter(ctx, *vr.VmIndex, map[string]any{"vmConfigDescription": "stale"}, etag)
	if !client.IsStatus(err, 412) {
		t.Fatalf("a change with a stale ETag: %v", err)
	}
	now, _, err := api.GetRouter(ctx, *vr.VmIndex)
	if err != nil || now.VmName != "acc-etag-snmp" || now.VmConfigDescription != nil {
		t.Errorf("after the refused change: %+v (%v)", now, err)
	}
}

// TestAccRoutersDataSource: VRs made outside the configuration, listed with the server's filters.
func TestAccRoutersDataSource(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	for _, vr := range []client.Router{{VmName: "acc-list-up"}, {VmName: "acc-list-down", VmAdminState: "shutdown"}} {
		made, _, _, err := api.CreateRouter(ctx, vr, client.NewIdempotencyKey())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = api.DeleteRouter(ctx, *made.VmIndex) })
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: config(`
data "vrouter_routers" "all" { name = "acc-list-*" }
data "vrouter_routers" "down" {
  name        = "acc-list-*"
  admin_state = "shutdown"
}`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.vrouter_routers.all", "routers.#", "2"),
				resource.TestCheckResourceAttr("data.vrouter_routers.down", "routers.#", "1"),
				resource.TestCheckResourceAttr("data.vrouter_routers.down", "routers.0.name", "acc-list-down"),
				resource.TestCheckResourceAttr("data.vrouter_routers.down", "routers.0.oper_state", "shutdown"),
				resource.TestCheckResourceAttrSet("data.vrouter_routers.down", "routers.0.vm_index"),
			),
		}},
	})
}
