// PMIx requests of dynamic processes (Open MPI's mpirun / PRRTE): PMIx_Spawn with the parent's
// port in the children's environment, PMIx_Publish / PMIx_Lookup / PMIx_Unpublish.
#include "core/pmi.hpp"

#ifdef BATON_HAVE_PMIX

#include <pmix.h>

#include <cstdlib>
#include <cstring>

namespace baton::core::pmix {

namespace {
// A NULL-terminated array of malloc'd strings, as PMIX_APP_FREE releases it.
char** string_array(const std::vector<std::string>& v) {
  char** a = static_cast<char**>(std::calloc(v.size() + 1, sizeof(char*)));
  for (size_t i = 0; i < v.size(); ++i) a[i] = strdup(v[i].c_str());
  return a;
}
}  // namespace

errc spawn(const std::vector<pmi_spawn_app>& apps, const std::string& env, std::vector<int>* errcodes) {
  pmix_app_t* a = nullptr;
  PMIX_APP_CREATE(a, apps.size());
  size_t n = 0;
  for (size_t i = 0; i < apps.size(); ++i) {
    const pmi_spawn_app& s = apps[i];
    a[i].cmd = strdup(s.command.c_str());
    std::vector<std::string> argv{s.command};
    argv.insert(argv.end(), s.argv.begin(), s.argv.end());
    a[i].argv = string_array(argv);
    a[i].env = string_array({env});
    a[i].maxprocs = s.maxprocs;
    n += size_t(s.maxprocs);
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& [k, v] : s.info) {
      if (k == "wdir")
        a[i].cwd = strdup(v.c_str());
      else
        keys.emplace_back(k == "host" ? PMIX_HOST : PMIX_HOSTFILE, v);
    }
    if (!keys.empty()) {
      PMIX_INFO_CREATE(a[i].info, keys.size());
      a[i].ninfo = keys.size();
      for (size_t k = 0; k < keys.size(); ++k)
        PMIX_INFO_LOAD(&a[i].info[k], keys[k].first.c_str(), keys[k].second.c_str(), PMIX_STRING);
    }
  }
  pmix_nspace_t child;
  const pmix_status_t st = PMIx_Spawn(nullptr, 0, a, apps.size(), child);
  PMIX_APP_FREE(a, apps.size());
  if (st != PMIX_SUCCESS)
    return error_set(errc::spawn, "the launcher refused the spawn: PMIx_Spawn failed: %s", PMIx_Error_string(st));
  errcodes->assign(n, 0);
  return errc::success;
}

errc publish(const std::string& service, const std::string& port) {
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, service.c_str(), port.c_str(), PMIX_STRING);
  const pmix_status_t st = PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (st != PMIX_SUCCESS)
    return error_set(errc::name, "the launcher refused to publish '%s': PMIx_Publish failed: %s", service.c_str(),
                     PMIx_Error_string(st));
  return errc::success;
}

errc unpublish(const std::string& service) {
  // Open MPI's server answers success for a name nobody published: ask first.
  std::string port;
  if (errc e = lookup(service, &port); e != errc::success) return e;
  char* keys[2] = {const_cast<char*>(service.c_str()), nullptr};
  const pmix_status_t st = PMIx_Unpublish(keys, nullptr, 0);
  if (st != PMIX_SUCCESS)
    return error_set(errc::name, "service name '%s' is not published (PMIx_Unpublish: %s)", service.c_str(),
                     PMIx_Error_string(st));
  return errc::success;
}

errc lookup(const std::string& service, std::string* port) {
  if (service.size() > PMIX_MAX_KEYLEN)
    return error_set(errc::name, "service name '%.60s...' is longer than PMIx allows", service.c_str());
  pmix_pdata_t pd;
  PMIX_PDATA_CONSTRUCT(&pd);
  std::strncpy(pd.key, service.c_str(), PMIX_MAX_KEYLEN);
  const pmix_status_t st = PMIx_Lookup(&pd, 1, nullptr, 0);
  errc e = errc::success;
  if (st != PMIX_SUCCESS || pd.value.type != PMIX_STRING || !pd.value.data.string)
    e = error_set(errc::name, "service name '%s' is not published (PMIx_Lookup: %s)", service.c_str(),
                  PMIx_Error_string(st));
  else
    *port = pd.value.data.string;
  PMIX_PDATA_DESTRUCT(&pd);
  return e;
}

}  // namespace baton::core::pmix

#endif  // BATON_HAVE_PMIX (the stubs without libpmix are in pmi_pmix.cpp)
