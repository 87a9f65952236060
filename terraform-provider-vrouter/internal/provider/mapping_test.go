package provider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// A VR as the server answered POST /routers?wait=30s (trimmed to the parts the provider reads).
const createdJSON = `{"vmIndex":1,"vmName":"p1","vmAdminState":"running","vmConfigTemplate":"vyos","vmConfigCpuNumber":1,
 "vmConfigMemory":512,"vmConfigAutoStart":false,"vmNetworkConfigTable":[
  {"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0","vmNetworkConfigPhysAddress":"02:00:00:00:01:01",
   "vmNetworkConfigAddressType":"ipv4","vmNetworkConfigAddress":"192.0.2.1","vmNetworkConfigPrefixLength":24},
  {"vmNetworkConfigIndex":2,"vmNetworkConfigParent":"eth1","vmNetworkConfigPhysAddress":"02:00:00:00:01:02",
   "vmNetworkConfigLinkType":"vxlan","vmNetworkConfigVni":42,"vmNetworkConfigRemote":"203.0.113.2"}],
 "vmEntry":{"vmOperState":"running","vmUUID":"b4131b91-9208-371a-aafe-1c1737a85ff6"}}`

func decode(t *testing.T, s string) client.Router {
	t.Helper()
	var r client.Router
	if err := json.Unmarshal([]byte(strings.ReplaceAll(s, "\n", "")), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSchemasAreValid(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	var ps fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &ps)
	if ps.Diagnostics.HasError() {
		t.Fatal(ps.Diagnostics)
	}
	for _, f := range p.Resources(ctx) {
		var rs resource.SchemaResponse
		f().Schema(ctx, resource.SchemaRequest{}, &rs)
		if d := rs.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Fatal(d)
		}
	}
	for _, f := range p.DataSources(ctx) {
		var ds datasource.SchemaResponse
		f().Schema(ctx, datasource.SchemaRequest{}, &ds)
		if d := ds.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Fatal(d)
		}
	}
	if !ps.Schema.Attributes["password"].IsSensitive() {
		t.Error("the password must be marked sensitive")
	}
}

func TestReadMapsEveryColumnAndTheServersDefaults(t *testing.T) {
	m := modelFromRouter(decode(t, createdJSON))
	if m.ID.ValueString() != "1" || m.VmIndex.ValueInt64() != 1 || m.Name.ValueString() != "p1" {
		t.Errorf("identity: %v %v %v", m.ID, m.VmIndex, m.Name)
	}
	if m.CpuWeight.ValueInt64() != 100 {
		t.Errorf("an absent vmConfigCpuWeight is the server's 100, got %v", m.CpuWeight)
	}
	if !m.Description.IsNull() || !m.Tenant.IsNull() {
		t.Errorf("absent description and tenant are null: %v %v", m.Description, m.Tenant)
	}
	if m.UUID.ValueString() != "b4131b91-9208-371a-aafe-1c1737a85ff6" || m.OperState.ValueString() != "running" {
		t.Errorf("vmEntry: %v %v", m.UUID, m.OperState)
	}
	if len(m.Interfaces) != 2 {
		t.Fatalf("interfaces: %v", m.Interfaces)
	}
	bridge, vxlan := m.Interfaces[0], m.Interfaces[1]
	if bridge.LinkType.ValueString() != "bridge" || bridge.Mac.ValueString() != "02:00:00:00:01:01" ||
		bridge.PrefixLength.ValueInt64() != 24 || !bridge.RateIn.IsNull() {
		t.Errorf("bridge interface: %+v", bridge)
	}
	if vxlan.LinkType.ValueString() != "vxlan" || vxlan.Vni.ValueInt64() != 42 ||
		vxlan.Remote.ValueString() != "203.0.113.2" || !vxlan.Address.IsNull() {
		t.Errorf("vxlan interface: %+v", vxlan)
	}
}

func TestCreateSendsOnlyWhatIsKnown(t *testing.T) {
	m := modelFromRouter(decode(t, createdJSON))
	m.CpuWeight = types.Int64Unknown()
	m.Tenant = types.StringUnknown()
	m.Interfaces[0].Mac = types.StringUnknown()
	b, _ := json.Marshal(routerFromModel(m))
	s := string(b)
	for _, absent := range []string{"vmConfigCpuWeight", "vmConfigTenant", "vmEntry", "02:00:00:00:01:01"} {
		if strings.Contains(s, absent) {
			t.Errorf("%s sent while unknown: %s", absent, s)
		}
	}
	for _, present := range []string{`"vmName":"p1"`, `"vmNetworkConfigVni":42`, `"02:00:00:00:01:02"`} {
		if !strings.Contains(s, present) {
			t.Errorf("%s not sent: %s", present, s)
		}
	}
}

func TestPatchHoldsOnlyTheChangedColumns(t *testing.T) {
	state := modelFromRouter(decode(t, createdJSON))
	plan := modelFromRouter(decode(t, createdJSON))
	if p := patchFrom(state, plan); len(p) != 0 {
		t.Errorf("no change, yet a patch: %v", p)
	}
	plan.Description = types.StringValue("edge")
	plan.Interfaces[1].RateOut = types.Int64Value(20000)
	p := patchFrom(state, plan)
	if len(p) != 2 || p["vmConfigDescription"] != "edge" || p["vmNetworkConfigTable"] == nil {
		t.Errorf("patch: %v", p)
	}
	// Back to none: the server's none for a description is "".
	if p := patchFrom(plan, state); p["vmConfigDescription"] != "" {
		t.Errorf("clearing the description: %v", p)
	}
}

func TestResizingARunningVrRestartsIt(t *testing.T) {
	state := modelFromRouter(decode(t, createdJSON))
	plan := state
	plan.Memory = types.Int64Value(1024)
	if !needsRestart(state, plan) {
		t.Error("memory on a running VR needs a restart")
	}
	plan.AdminState = types.StringValue("shutdown")
	if needsRestart(state, plan) {
		t.Error("a VR being shut down is resized by the same change")
	}
	plan = state
	plan.CpuWeight = types.Int64Value(500)
	if needsRestart(state, plan) {
		t.Error("the CPU weight changes live")
	}
}

func TestProblemsNameTheAttribute(t *testing.T) {
	err := error(&client.Problem{Status: 400, Title: "Bad Request", Field: "vmNetworkConfigTable[0].vmNetworkConfigAddress",
		Detail: "127.0.0.1 is a loopback address"})
	got := describe(err)
	for _, want := range []string{"127.0.0.1 is a loopback address", "interfaces.address", "400 Bad Request"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if describe(errors.New("connection refused")) != "connection refused" {
		t.Error("a transport error is said as it is")
	}
}
