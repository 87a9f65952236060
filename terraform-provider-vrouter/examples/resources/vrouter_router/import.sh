# By vmIndex
tofu import vrouter_router.edge1 1
# or by vmName
tofu import vrouter_router.edge1 edge1
