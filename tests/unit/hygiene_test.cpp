// Shared-memory objects (core/shm_object, core/shm_names) and handle slabs (core/slab).
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "core/shm_names.hpp"
#include "core/shm_object.hpp"
#include "core/slab.hpp"

namespace names = baton::core::shm_names;
using baton::core::errc;

TEST(ShmNames, ParsesTodaysAndEarlierNames) {
  names::parsed p;
  const std::string r32(32, 'a');
  ASSERT_TRUE(names::parse("baton.baton-123-00ff00ff00ff00ff.host.456." + r32, &p));
  EXPECT_EQ(p.job, "baton-123-00ff00ff00ff00ff");
  EXPECT_EQ(p.kind, "host");
  EXPECT_EQ(p.creator, 456);
  EXPECT_EQ(p.launcher, 123);
  ASSERT_TRUE(names::parse("baton.xkvs_77_0.win.9." + r32, &p));
  EXPECT_EQ(p.launcher, -1);
  EXPECT_EQ(p.creator, 9);
  ASSERT_TRUE(names::parse("baton.coll.42.7", &p));
  EXPECT_EQ(p.creator, 42);
  ASSERT_TRUE(names::parse("baton-win-43-0", &p));
  EXPECT_EQ(p.creator, 43);
  ASSERT_TRUE(names::parse("baton.kvs_baton-44-0123abcd.0", &p));
  EXPECT_EQ(p.launcher, 44);
  EXPECT_FALSE(names::parse("baton.something", &p));
  EXPECT_FALSE(names::parse("baton.a.b.c.d.e.f", &p));
  EXPECT_FALSE(names::parse("baton.job.kind.12.short", &p));
  EXPECT_FALSE(names::parse("other.coll.1.2", &p));
}

TEST(ShmNames, JobFieldIsSafeAndBounded) {
  EXPECT_EQ(names::job_field("kvs_12.3/x"), "kvs_12_3_x");
  const std::string longer(200, 'q');
  const std::string h = names::job_field(longer);
  EXPECT_LE(h.size(), names::max_job);
  EXPECT_EQ(h, names::job_field(longer));  // the same for every rank
  EXPECT_EQ(h[0], 'h');
}

TEST(ShmObject, NamesAreRandomAndPrivate) {
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) {
    baton::core::shm_object o;
    ASSERT_EQ(baton::core::shm_create("test", 4096, &o), errc::success);
    EXPECT_TRUE(seen.insert(o.name).second);
    names::parsed p;
    EXPECT_TRUE(names::parse(o.name.substr(1), &p)) << o.name;
    EXPECT_EQ(p.kind, "test");
    EXPECT_EQ(p.creator, long(getpid()));
    struct stat st {};
    ASSERT_EQ(stat(("/dev/shm" + o.name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(st.st_uid, geteuid());
    baton::core::shm_object other;
    EXPECT_EQ(baton::core::shm_open_checked(o.name, 4096, &other), errc::success);
    EXPECT_EQ(baton::core::shm_open_checked(o.name, 8192, &other), errc::other);  // wrong size
    baton::core::shm_unmap(other);
    baton::core::shm_unlink_name(o);
    EXPECT_TRUE(o.name.empty());
    baton::core::shm_unmap(o);
  }
}

// A file of another user (or open to others) under the name is refused: never mapped.
TEST(ShmObject, RefusesAnotherUsersObject) {
  const std::string name = "/baton.unit-" + std::to_string(getpid()) + ".test.1." + std::string(32, '0');
  const std::string path = "/dev/shm" + name;
  {
    // Open to others (mode 0666): refused even though it is ours.
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_RDWR, 0666);
    ASSERT_GE(fd, 0);
    fchmod(fd, 0666);
    ASSERT_EQ(ftruncate(fd, 4096), 0);
    close(fd);
    baton::core::shm_object o;
    EXPECT_EQ(baton::core::shm_open_checked(name, 4096, &o), errc::other);
    EXPECT_EQ(o.base, nullptr);
    unlink(path.c_str());
  }
  if (geteuid() != 0) GTEST_SKIP() << "not root: cannot make a file owned by another user";
  const pid_t c = fork();
  if (c == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(1);
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    _exit(fd >= 0 && ftruncate(fd, 4096) == 0 ? 0 : 2);
  }
  int st = 0;
  waitpid(c, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  baton::core::shm_object o;
  EXPECT_EQ(baton::core::shm_open_checked(name, 4096, &o), errc::other);
  EXPECT_EQ(o.base, nullptr);
  unlink(path.c_str());
}

namespace {
struct thing : baton::core::slab_allocated<thing> {
  uint32_t magic = 0x54484731;
  char payload[200] = {};
};
}  // namespace

TEST(Slab, HoldsOnlyItsObjects) {
  thing* a = new thing;
  thing* b = new thing;
  EXPECT_TRUE(baton::core::slab_holds<thing>(a));
  EXPECT_TRUE(baton::core::slab_holds<thing>(b));
  EXPECT_FALSE(baton::core::slab_holds<thing>(reinterpret_cast<char*>(a) + 1));
  EXPECT_FALSE(baton::core::slab_holds<thing>(reinterpret_cast<char*>(a) + 64));
  int local = 0;
  EXPECT_FALSE(baton::core::slab_holds<thing>(&local));
  EXPECT_FALSE(baton::core::slab_holds<thing>(nullptr));
  EXPECT_FALSE(baton::core::slab_holds<thing>(reinterpret_cast<void*>(0xdeadbeefdeadbeefULL)));
  void* heap = std::malloc(256);
  EXPECT_FALSE(baton::core::slab_holds<thing>(heap));
  std::free(heap);
  delete b;
  // A freed object is still in the slab, and reads as zeros: its magic is gone.
  EXPECT_TRUE(baton::core::slab_holds<thing>(b));
  EXPECT_NE(b->magic, 0x54484731u);
  // b's slot is reused only after 64 newer frees (quarantine): the stale handle keeps failing.
  std::vector<thing*> more;
  for (int i = 0; i < 64; ++i) {
    more.push_back(new thing);
    EXPECT_NE(more.back(), b);
  }
  for (thing* t : more) delete t;
  EXPECT_NE(b->magic, 0x54484731u);
  thing* c = new thing;  // the oldest freed slot: b's
  EXPECT_EQ(c, b);
  EXPECT_EQ(c->magic, 0x54484731u);
  delete a;
  delete c;
}

// Objects whose stride does not divide a page (320 bytes here) across many growth steps: every
// slot stays readable and recognised (a growth step once started off a page boundary).
namespace {
struct odd : baton::core::slab_allocated<odd> {
  uint32_t magic = 0x4f444431;
  char payload[300] = {};
};
}  // namespace

TEST(Slab, GrowsPastManyPages) {
  static_assert(baton::core::slab_traits<odd>::stride == 320);
  std::vector<odd*> v;
  for (int i = 0; i < 5000; ++i) {
    v.push_back(new odd);
    ASSERT_TRUE(baton::core::slab_holds<odd>(v.back()));
  }
  for (odd* o : v) EXPECT_EQ(o->magic, 0x4f444431u);
  for (odd* o : v) delete o;
}
