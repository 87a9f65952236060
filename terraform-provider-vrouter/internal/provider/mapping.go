package provider

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// The attributes are NEW-VMM-MIB's columns in HCL's snake case; this file maps one to the other.

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	macPattern  = regexp.MustCompile(`^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$`)
)

type routerModel struct {
	ID          types.String     `tfsdk:"id"`
	VmIndex     types.Int64      `tfsdk:"vm_index"`
	Name        types.String     `tfsdk:"name"`
	Description types.String     `tfsdk:"description"`
	Template    types.String     `tfsdk:"template"`
	Cpus        types.Int64      `tfsdk:"cpus"`
	Memory      types.Int64      `tfsdk:"memory"`
	CpuWeight   types.Int64      `tfsdk:"cpu_weight"`
	AdminState  types.String     `tfsdk:"admin_state"`
	AutoStart   types.Bool       `tfsdk:"auto_start"`
	Tenant      types.String     `tfsdk:"tenant"`
	UUID        types.String     `tfsdk:"uuid"`
	OperState   types.String     `tfsdk:"oper_state"`
	Interfaces  []interfaceModel `tfsdk:"interfaces"`
}

type interfaceModel struct {
	Index         types.Int64  `tfsdk:"index"`
	Parent        types.String `tfsdk:"parent"`
	Mac           types.String `tfsdk:"mac"`
	Address       types.String `tfsdk:"address"`
	PrefixLength  types.Int64  `tfsdk:"prefix_length"`
	LinkType      types.String `tfsdk:"link_type"`
	PeerRouter    types.Int64  `tfsdk:"peer_router"`
	PeerInterface types.Int64  `tfsdk:"peer_interface"`
	Vni           types.Int64  `tfsdk:"vni"`
	Remote        types.String `tfsdk:"remote"`
	RateIn        types.Int64  `tfsdk:"rate_in"`
	RateOut       types.Int64  `tfsdk:"rate_out"`
}

// attributeOf names a problem's field (a MIB column) as the configuration spells it.
var attributeOf = map[string]string{
	"vmName": "name", "vmConfigDescription": "description", "vmConfigTemplate": "template",
	"vmConfigCpuNumber": "cpus", "vmConfigMemory": "memory", "vmConfigCpuWeight": "cpu_weight",
	"vmAdminState": "admin_state", "vmConfigAutoStart": "auto_start", "vmConfigTenant": "tenant",
	"vmNetworkConfigIndex": "interfaces.index", "vmNetworkConfigParent": "interfaces.parent",
	"vmNetworkConfigPhysAddress": "interfaces.mac", "vmNetworkConfigAddress": "interfaces.address",
	"vmNetworkConfigPrefixLength": "interfaces.prefix_length", "vmNetworkConfigLinkType": "interfaces.link_type",
	"vmNetworkConfigPeerRouter": "interfaces.peer_router", "vmNetworkConfigPeerInterface": "interfaces.peer_interface",
	"vmNetworkConfigVni": "interfaces.vni", "vmNetworkConfigRemote": "interfaces.remote",
	"vmNetworkConfigRateIn": "interfaces.rate_in", "vmNetworkConfigRateOut": "interfaces.rate_out",
}

// describe is an error as the operator reads it: a problem's detail first, then the attribute it names.
func describe(err error) string {
	var p *client.Problem
	if !errors.As(err, &p) {
		return err.Error()
	}
	msg := p.Detail
	if p.Field != "" {
		// Fields of interfaces may come as vmNetworkConfigTable[1].vmNetworkConfigAddress: name the column.
		col := p.Field[strings.LastIndexAny(p.Field, ".]")+1:]
		if attr, ok := attributeOf[col]; ok {
			msg += fmt.Sprintf("\n\nAttribute: %s (the server's field %s).", attr, p.Field)
		} else {
			msg += "\n\nField: " + p.Field + "."
		}
	}
	return msg + fmt.Sprintf("\nThe server answered %d %s.", p.Status, p.Title)
}

// routerFromModel is the POST body for a planned VR: only what is known; the server fills its defaults.
func routerFromModel(m routerModel) client.Router {
	return client.Router{
		VmName:               m.Name.ValueString(),
		VmConfigDescription:  str(m.Description),
		VmConfigTemplate:     m.Template.ValueString(),
		VmConfigCpuNumber:    i64(m.Cpus),
		VmConfigMemory:       i64(m.Memory),
		VmConfigCpuWeight:    i64(m.CpuWeight),
		VmAdminState:         m.AdminState.ValueString(),
		VmConfigAutoStart:    boolean(m.AutoStart),
		VmConfigTenant:       str(m.Tenant),
		VmNetworkConfigTable: interfacesFromModel(m.Interfaces),
	}
}

func interfacesFromModel(list []interfaceModel) []client.Interface {
	out := make([]client.Interface, 0, len(list))
	for _, i := range list {
		out = append(out, client.Interface{
			VmNetworkConfigIndex:         i64(i.Index),
			VmNetworkConfigParent:        str(i.Parent),
			VmNetworkConfigPhysAddress:   str(i.Mac),
			VmNetworkConfigAddress:       str(i.Address),
			VmNetworkConfigPrefixLength:  i64(i.PrefixLength),
			VmNetworkConfigLinkType:      str(i.LinkType),
			VmNetworkConfigPeerRouter:    i64(i.PeerRouter),
			VmNetworkConfigPeerInterface: i64(i.PeerInterface),
			VmNetworkConfigVni:           i64(i.Vni),
			VmNetworkConfigRemote:        str(i.Remote),
			VmNetworkConfigRateIn:        i64(i.RateIn),
			VmNetworkConfigRateOut:       i64(i.RateOut),
		})
	}
	return out
}

// modelFromRouter is the state for a VR as the server has it: everything, so that a change made over
// another interface (SNMP, NETCONF, the console) shows as a difference in the next plan.
func modelFromRouter(r client.Router) routerModel {
	m := routerModel{
		Name:        types.StringValue(r.VmName),
		Description: types.StringPointerValue(r.VmConfigDescription),
		Template:    types.StringValue(r.VmConfigTemplate),
		Cpus:        int64Or(r.VmConfigCpuNumber, 1),
		Memory:      int64Or(r.VmConfigMemory, 512),
		CpuWeight:   int64Or(r.VmConfigCpuWeight, 100),
		AdminState:  types.StringValue(r.VmAdminState),
		AutoStart:   types.BoolValue(r.VmConfigAutoStart != nil && *r.VmConfigAutoStart),
		Tenant:      types.StringPointerValue(r.VmConfigTenant),
		UUID:        types.StringNull(),
		OperState:   types.StringNull(),
	}
	if r.VmIndex != nil {
		m.VmIndex = types.Int64Value(*r.VmIndex)
		m.ID = types.StringValue(strconv.FormatInt(*r.VmIndex, 10))
	}
	if r.VmConfigDescription != nil && *r.VmConfigDescription == "" {
		m.Description = types.StringNull() // the server keeps an empty description as none
	}
	if r.VmEntry != nil {
		if r.VmEntry.VmUUID != "" {
			m.UUID = types.StringValue(r.VmEntry.VmUUID)
		}
		m.OperState = types.StringValue(r.VmEntry.VmOperState)
	}
	for _, i := range r.VmNetworkConfigTable {
		linkType := "bridge"
		if i.VmNetworkConfigLinkType != nil {
			linkType = *i.VmNetworkConfigLinkType
		}
		m.Interfaces = append(m.Interfaces, interfaceModel{
			Index:         types.Int64PointerValue(i.VmNetworkConfigIndex),
			Parent:        types.StringPointerValue(i.VmNetworkConfigParent),
			Mac:           types.StringPointerValue(i.VmNetworkConfigPhysAddress),
			Address:       types.StringPointerValue(i.VmNetworkConfigAddress),
			PrefixLength:  types.Int64PointerValue(i.VmNetworkConfigPrefixLength),
			LinkType:      types.StringValue(linkType),
			PeerRouter:    types.Int64PointerValue(i.VmNetworkConfigPeerRouter),
			PeerInterface: types.Int64PointerValue(i.VmNetworkConfigPeerInterface),
			Vni:           types.Int64PointerValue(i.VmNetworkConfigVni),
			Remote:        types.StringPointerValue(i.VmNetworkConfigRemote),
			RateIn:        types.Int64PointerValue(i.VmNetworkConfigRateIn),
			RateOut:       types.Int64PointerValue(i.VmNetworkConfigRateOut),
		})
	}
	return m
}

// patchFrom is the merge patch from the state to the plan: the columns that change, nothing else.
// A column set to none is sent as null (merge patch's removal), a description as "" (the server's none).
func patchFrom(state, plan routerModel) map[string]any {
	p := map[string]any{}
	if !plan.Name.Equal(state.Name) {
		p["vmName"] = plan.Name.ValueString()
	}
	if !plan.Description.Equal(state.Description) {
		p["vmConfigDescription"] = plan.Description.ValueString()
	}
	if !plan.Cpus.Equal(state.Cpus) {
		p["vmConfigCpuNumber"] = plan.Cpus.ValueInt64()
	}
	if !plan.Memory.Equal(state.Memory) {
		p["vmConfigMemory"] = plan.Memory.ValueInt64()
	}
	if known(plan.CpuWeight) && !plan.CpuWeight.Equal(state.CpuWeight) {
		p["vmConfigCpuWeight"] = plan.CpuWeight.ValueInt64()
	}
	if !plan.AdminState.Equal(state.AdminState) {
		p["vmAdminState"] = plan.AdminState.ValueString()
	}
	if !plan.AutoStart.Equal(state.AutoStart) {
		p["vmConfigAutoStart"] = plan.AutoStart.ValueBool()
	}
	if known(plan.Tenant) && !plan.Tenant.Equal(state.Tenant) {
		p["vmConfigTenant"] = plan.Tenant.ValueString()
	}
	if !reflect.DeepEqual(plan.Interfaces, state.Interfaces) {
		p["vmNetworkConfigTable"] = interfacesFromModel(plan.Interfaces)
	}
	return p
}

// needsRestart: CPUs or memory change on a VR that is not shut down and is not to be.
func needsRestart(state, plan routerModel) bool {
	resize := !plan.Cpus.Equal(state.Cpus) || !plan.Memory.Equal(state.Memory)
	return resize && state.AdminState.ValueString() != "shutdown" && plan.AdminState.ValueString() != "shutdown"
}

type knowable interface {
	IsNull() bool
	IsUnknown() bool
}

func known(v knowable) bool { return !v.IsNull() && !v.IsUnknown() }

func str(v types.String) *string {
	if !known(v) {
		return nil
	}
	s := v.ValueString()
	return &s
}

func i64(v types.Int64) *int64 {
	if !known(v) {
		return nil
	}
	n := v.ValueInt64()
	return &n
}

func boolean(v types.Bool) *bool {
	if !known(v) {
		return nil
	}
	b := v.ValueBool()
	return &b
}

func int64Or(p *int64, absent int64) types.Int64 {
	if p == nil {
		return types.Int64Value(absent)
	}
	return types.Int64Value(*p)
}
