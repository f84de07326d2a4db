# The transport seam (src/transport/transport.hpp): a transport includes nothing of the layers
# above it (p2p and what sits on p2p); what it shares with matching is in transport.hpp or core.
add_test(NAME transport_includes_nothing_above
         COMMAND sh -c "! grep -rnE '#include \"(p2p|coll|queue|rma|io|comm|abi)/' '${PROJECT_SOURCE_DIR}/src/transport'")
set_tests_properties(transport_includes_nothing_above PROPERTIES LABELS unit TIMEOUT 30)
