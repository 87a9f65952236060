package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// configured takes the provider's client out of a data source's configure request.
func configured(data any, diags *diag.Diagnostics) *client.Client {
	if data == nil {
		return nil // not configured yet (validation)
	}
	c, ok := data.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data", "the vrouter provider handed over something other than its client")
	}
	return c
}

// computedInt64 is a number the server reports, described.
func computedInt64(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, Description: desc}
}

// vrouter_hypervisor: GET /hypervisor, the host's capacity and what the VRs commit of it.
type hypervisorDataSource struct{ client *client.Client }

type hypervisorModel struct {
	Software        types.String `tfsdk:"software"`
	Version         types.String `tfsdk:"version"`
	UpTime          types.Int64  `tfsdk:"up_time"`
	VMs             types.Int64  `tfsdk:"vms"`
	ConfiguredVMs   types.Int64  `tfsdk:"configured_vms"`
	ActiveVMs       types.Int64  `tfsdk:"active_vms"`
	NextVmIndex     types.Int64  `tfsdk:"next_vm_index"`
	Cpus            types.Int64  `tfsdk:"cpus"`
	Memory          types.Int64  `tfsdk:"memory"`
	CommittedCpus   types.Int64  `tfsdk:"committed_cpus"`
	CommittedMemory types.Int64  `tfsdk:"committed_memory"`
}

func newHypervisorDataSource() datasource.DataSource { return &hypervisorDataSource{} }

func (d *hypervisorDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_hypervisor"
}

func (d *hypervisorDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The vmHypervisor group of NEW-VMM-MIB and the scalars: the host's capacity and commitments.",
		Attributes: map[string]schema.Attribute{
			"software":         schema.StringAttribute{Computed: true, Description: "vmHvSoftware"},
			"version":          schema.StringAttribute{Computed: true, Description: "vmHvVersion"},
			"up_time":          computedInt64("vmHvUpTime, hundredths of a second"),
			"vms":              computedInt64("vmNumber: VMs on the host"),
			"configured_vms":   computedInt64("vmConfiguredVMs"),
			"active_vms":       computedInt64("vmActiveVMs"),
			"next_vm_index":    computedInt64("vmConfigNextAvailableVmIndex"),
			"cpus":             computedInt64("vmHvCpus: the host's CPUs; null where the driver does not know them (the simulated one)"),
			"memory":           computedInt64("vmHvMemory: the host's memory, MiB"),
			"committed_cpus":   computedInt64("vmCommittedCpus: the vCPUs the VRs commit"),
			"committed_memory": computedInt64("vmCommittedMemory: the memory the VRs commit, MiB"),
		},
	}
}

func (d *hypervisorDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configured(req.ProviderData, &resp.Diagnostics)
}

func (d *hypervisorDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	h, err := d.client.Hypervisor(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the hypervisor", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, hypervisorModel{
		Software: types.StringValue(h.VmHvSoftware), Version: types.StringValue(h.VmHvVersion),
		UpTime: types.Int64Value(h.VmHvUpTime), VMs: types.Int64Value(h.VmNumber),
		ConfiguredVMs: types.Int64Value(h.VmConfiguredVMs), ActiveVMs: types.Int64Value(h.VmActiveVMs),
		NextVmIndex: types.Int64Value(h.VmConfigNextAvailableVmIndex),
		Cpus:        types.Int64PointerValue(h.VmHvCpus), Memory: types.Int64PointerValue(h.VmHvMemory),
		CommittedCpus: types.Int64Value(h.VmCommittedCpus), CommittedMemory: types.Int64Value(h.VmCommittedMemory),
	})...)
}

// vrouter_templates: GET /session, the templates and admin states the driver offers, and the caller.
type templatesDataSource struct{ client *client.Client }

type templatesModel struct {
	Templates   types.List   `tfsdk:"templates"`
	AdminStates types.List   `tfsdk:"admin_states"`
	Driver      types.String `tfsdk:"driver"`
	User        types.String `tfsdk:"user"`
	Role        types.String `tfsdk:"role"`
	Tenant      types.String `tfsdk:"tenant"`
}

func newTemplatesDataSource() datasource.DataSource { return &templatesDataSource{} }

func (d *templatesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_templates"
}

func (d *templatesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "What the server's driver offers (GET /api/v1/session) and who the provider signs in as.",
		Attributes: map[string]schema.Attribute{
			"templates":    schema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "the templates, the first being the default"},
			"admin_states": schema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "the vmAdminState values the driver can reach"},
			"driver":       schema.StringAttribute{Computed: true, Description: "the driver's name"},
			"user":         schema.StringAttribute{Computed: true},
			"role":         schema.StringAttribute{Computed: true},
			"tenant":       schema.StringAttribute{Computed: true, Description: "the caller's tenant; empty for the infrastructure provider's users"},
		},
	}
}

func (d *templatesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configured(req.ProviderData, &resp.Diagnostics)
}

func (d *templatesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	s, err := d.client.Session(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the session", err.Error())
		return
	}
	templates, diags := types.ListValueFrom(ctx, types.StringType, s.Templates)
	resp.Diagnostics.Append(diags...)
	states, diags := types.ListValueFrom(ctx, types.StringType, s.AdminStates)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, templatesModel{
		Templates: templates, AdminStates: states, Driver: types.StringValue(s.Driver),
		User: types.StringValue(s.User), Role: types.StringValue(s.Role), Tenant: types.StringValue(s.Tenant),
	})...)
}

// vrouter_tenants: GET /tenants, the tenants the caller sees (a tenant's user: its own), their quotas and usage.
type tenantsDataSource struct{ client *client.Client }

type tenantModel struct {
	Name        types.String `tfsdk:"name"`
	QuotaVrs    types.Int64  `tfsdk:"quota_vrs"`
	QuotaVcpus  types.Int64  `tfsdk:"quota_vcpus"`
	QuotaMemory types.Int64  `tfsdk:"quota_memory"`
	Vrs         types.Int64  `tfsdk:"vrs"`
	Vcpus       types.Int64  `tfsdk:"vcpus"`
	Memory      types.Int64  `tfsdk:"memory"`
}

type tenantsModel struct {
	Tenants []tenantModel `tfsdk:"tenants"`
}

func newTenantsDataSource() datasource.DataSource { return &tenantsDataSource{} }

func (d *tenantsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenants"
}

func (d *tenantsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The tenants the caller may see (GET /api/v1/tenants): the provider's users all, a tenant's users their own, " +
			"each with its quotas (null: not limited) and what its VRs commit.",
		Attributes: map[string]schema.Attribute{
			"tenants": schema.ListNestedAttribute{
				Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":         schema.StringAttribute{Computed: true, Description: "the tenant, as vmConfigTenant names it"},
					"quota_vrs":    computedInt64("the VRs it may have; null: no limit"),
					"quota_vcpus":  computedInt64("the vCPUs its VRs may commit; null: no limit"),
					"quota_memory": computedInt64("the memory its VRs may commit, MiB; null: no limit"),
					"vrs":          computedInt64("its VRs"),
					"vcpus":        computedInt64("the vCPUs its VRs commit"),
					"memory":       computedInt64("the memory its VRs commit, MiB"),
				}},
			},
		},
	}
}

func (d *tenantsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configured(req.ProviderData, &resp.Diagnostics)
}

func (d *tenantsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	tenants, err := d.client.Tenants(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the tenants", err.Error())
		return
	}
	out := tenantsModel{Tenants: []tenantModel{}}
	for _, t := range tenants {
		out.Tenants = append(out.Tenants, tenantModel{
			Name:     types.StringValue(t.Name),
			QuotaVrs: types.Int64PointerValue(t.Quota.Vrs), QuotaVcpus: types.Int64PointerValue(t.Quota.Vcpus),
			QuotaMemory: types.Int64PointerValue(t.Quota.Memory),
			Vrs:         types.Int64PointerValue(t.Usage.Vrs), Vcpus: types.Int64PointerValue(t.Usage.Vcpus),
			Memory: types.Int64PointerValue(t.Usage.Memory),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, out)...)
}
