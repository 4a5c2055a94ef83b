/*
 * powercut-fs: a FUSE file system over a backing directory that keeps every write it has not been
 * told to flush apart, as a disk's page cache does, and loses it on command, as a power cut does.
 *
 *   powercut-fs BACKING MOUNTPOINT [FUSE options, e.g. -f]
 *
 * Files live in BACKING. A write lands in 4 KB pages held in memory ("dirty"), and a truncation in
 * a size held in memory, until fsync(2) or fdatasync(2) of the file writes them to BACKING; reads
 * see them meanwhile. Creating, renaming and removing files and folders reach BACKING at once
 * (durable, as a journaling file system makes them soon after). The control file /.powercut takes
 * one command per write:
 *   "cut SEED"  the power goes: each dirty page is written to BACKING or dropped, chosen at random
 *               (seeded), as a disk may have written any of them in any order; a file's new size
 *               is kept or not, alike; then every dirty page is gone;
 *   "sync"      everything is flushed, as sync(1).
 * Reading /.powercut tells the dirty pages held now. Mount it afresh after a cut (the kernel's own
 * caches of the old mount then go too). Single-threaded (-s): one request at a time.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define PAGE 4096
#define BUCKETS 65536
#define CONTROL "/.powercut"

typedef struct Page {
  ino_t ino;
  off_t index;
  char data[PAGE];
  struct Page *next;
} Page;

/* A file with unflushed changes: its size as readers see it, and the size below which its
 * backing file's old bytes still count (a truncation cuts them off until it is flushed). */
typedef struct Node {
  ino_t ino;
  int fd;
  off_t size;
  off_t floor;
  struct Node *next;
} Node;

static const char *backing;
static Page *pages[BUCKETS];
static Node *nodes;
static unsigned long long dirty;
static unsigned long long rng = 1;

static unsigned next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}

static void real_path(char *out, const char *path) { snprintf(out, PATH_MAX, "%s%s", backing, path); }

static unsigned bucket(ino_t ino, off_t index) { return (unsigned)((ino * 2654435761u) ^ (index * 40503u)) % BUCKETS; }

static Page *page_find(ino_t ino, off_t index) {
  for (Page *p = pages[bucket(ino, index)]; p; p = p->next)
    if (p->ino == ino && p->index == index) return p;
  return NULL;
}

static Node *node_find(ino_t ino) {
  for (Node *n = nodes; n; n = n->next)
    if (n->ino == ino) return n;
  return NULL;
}

static ino_t ino_of_fd(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/* The node of the file open as `fd`, made when it has none. */
static Node *node_of(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return NULL;
  Node *n = node_find(st.st_ino);
  if (n) return n;
  n = calloc(1, sizeof *n);
  n->ino = st.st_ino;
  n->fd = dup(fd);
  n->size = st.st_size;
  n->floor = st.st_size;
  n->next = nodes;
  nodes = n;
  return n;
}

/* Reads page `index` as the backing file holds it, with what a truncation cut off as zeros. */
static void backing_page(Node *n, off_t index, char *out) {
  memset(out, 0, PAGE);
  off_t start = index * PAGE;
  if (start >= n->floor) return;
  ssize_t got = pread(n->fd, out, PAGE, start);
  if (got < 0) got = 0;
  off_t keep = n->floor - start < PAGE ? n->floor - start : PAGE;
  if (keep < got) memset(out + keep, 0, PAGE - keep);
}

static void drop_pages(ino_t ino, off_t from_index) {
  for (unsigned b = 0; b < BUCKETS; b++)
    for (Page **at = &pages[b]; *at;) {
      Page *p = *at;
      if (p->ino == ino && p->index >= from_index) {
        *at = p->next;
        free(p);
        dirty--;
      } else
        at = &p->next;
    }
}

static void drop_node(ino_t ino) {
  drop_pages(ino, 0);
  for (Node **at = &nodes; *at; at = &(*at)->next)
    if ((*at)->ino == ino) {
      Node *n = *at;
      *at = n->next;
      close(n->fd);
      free(n);
      return;
    }
}

/* Writes the node's pages (all, or at random when `cut`) and size to its backing file, and forgets them. A truncation
 * reaches the backing file first (its old bytes past it are gone, however far the file grew again since), or, on a
 * cut, not at all, as the disk may not have made it. */
static void settle(Node *n, int cut) {
  int truncated = !cut || next_random() % 2;
  struct stat st;
  if (truncated && fstat(n->fd, &st) == 0 && n->floor < st.st_size && ftruncate(n->fd, n->floor) != 0)
    perror("powercut-fs: ftruncate");
  off_t end = 0;
  for (unsigned b = 0; b < BUCKETS; b++)
    for (Page *p = pages[b]; p; p = p->next) {
      if (p->ino != n->ino || (cut && next_random() % 2)) continue;
      off_t start = p->index * PAGE;
      off_t length = n->size - start < PAGE ? n->size - start : PAGE;
      if (length <= 0) continue;
      if (pwrite(n->fd, p->data, length, start) < 0) perror("powercut-fs: pwrite");
      if (start + length > end) end = start + length;
    }
  if (truncated) {
    if (ftruncate(n->fd, n->size) != 0) perror("powercut-fs: ftruncate");
  } else if (fstat(n->fd, &st) == 0 && end > st.st_size && ftruncate(n->fd, end) != 0) {
    /* The new size was not written, but a page past the old end that was makes the file that long. */
    perror("powercut-fs: ftruncate");
  }
  drop_node(n->ino);
}

static void settle_all(int cut) {
  while (nodes) settle(nodes, cut);
}

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->use_ino = 1;
  cfg->nullpath_ok = 1;
  cfg->hard_remove = 1;
  cfg->entry_timeout = 0;
  cfg->attr_timeout = 0;
  cfg->negative_timeout = 0;
  return NULL;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  if (path && strcmp(path, CONTROL) == 0) {
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_size = 64;
    return 0;
  }
  char full[PATH_MAX];
  int res;
  if (fi)
    res = fstat(fi->fh, st);
  else {
    real_path(full, path);
    res = lstat(full, st);
  }
  if (res != 0) return -errno;
  Node *n = node_find(st->st_ino);
  if (n) st->st_size = n->size;
  return 0;
}

static int pc_opendir(const char *path, struct fuse_file_info *fi) {
  char full[PATH_MAX];
  real_path(full, path);
  DIR *dir = opendir(full);
  if (!dir) return -errno;
  fi->fh = (uint64_t)(uintptr_t)dir;
  return 0;
}

static int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
  (void)path, (void)off, (void)flags;
  DIR *dir = (DIR *)(uintptr_t)fi->fh;
  rewinddir(dir);
  for (struct dirent *e; (e = readdir(dir));) {
    struct stat st = {.st_ino = e->d_ino, .st_mode = (mode_t)e->d_type << 12};
    if (fill(buf, e->d_name, &st, 0, 0)) break;
  }
  return 0;
}

static int pc_releasedir(const char *path, struct fuse_file_info *fi) {
  (void)path;
  closedir((DIR *)(uintptr_t)fi->fh);
  return 0;
}

static int pc_mkdir(const char *path, mode_t mode) {
  char full[PATH_MAX];
  real_path(full, path);
  return mkdir(full, mode) == 0 ? 0 : -errno;
}

static int pc_unlink(const char *path) {
  char full[PATH_MAX];
  struct stat st;
  real_path(full, path);
  if (lstat(full, &st) == 0) drop_node(st.st_ino);
  return unlink(full) == 0 ? 0 : -errno;
}

static int pc_rmdir(const char *path) {
  char full[PATH_MAX];
  real_path(full, path);
  return rmdir(full) == 0 ? 0 : -errno;
}

static int pc_rename(const char *from, const char *to, unsigned int flags) {
  char a[PATH_MAX], b[PATH_MAX];
  struct stat st;
  real_path(a, from);
  real_path(b, to);
  if (lstat(b, &st) == 0) drop_node(st.st_ino);
  return renameat2(AT_FDCWD, a, AT_FDCWD, b, flags) == 0 ? 0 : -errno;
}

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  char full[PATH_MAX];
  if (fi) return fchmod(fi->fh, mode) == 0 ? 0 : -errno;
  real_path(full, path);
  return chmod(full, mode) == 0 ? 0 : -errno;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  char full[PATH_MAX];
  if (fi) return fchown(fi->fh, uid, gid) == 0 ? 0 : -errno;
  real_path(full, path);
  return lchown(full, uid, gid) == 0 ? 0 : -errno;
}

static int pc_utimens(const char *path, const struct timespec ts[2], struct fuse_file_info *fi) {
  char full[PATH_MAX];
  if (fi) return futimens(fi->fh, ts) == 0 ? 0 : -errno;
  real_path(full, path);
  return utimensat(AT_FDCWD, full, ts, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* A truncation held in memory: readers see the new size, and the old bytes past it are gone for them. */
static void truncate_node(Node *n, off_t size) {
  if (size < n->floor) n->floor = size;
  drop_pages(n->ino, (size + PAGE - 1) / PAGE);
  Page *last = size % PAGE ? page_find(n->ino, size / PAGE) : NULL;
  if (last) memset(last->data + size % PAGE, 0, PAGE - size % PAGE);
  n->size = size;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  char full[PATH_MAX];
  int fd = fi ? (int)fi->fh : -1;
  if (fd < 0) {
    real_path(full, path);
    fd = open(full, O_RDWR);
    if (fd < 0) return -errno;
  }
  truncate_node(node_of(fd), size);
  if (!fi) close(fd);
  return 0;
}

static int open_backing(const char *path, int flags, mode_t mode, struct fuse_file_info *fi) {
  char full[PATH_MAX];
  real_path(full, path);
  /* Writes go to memory and reads come back from it: the backing file is opened to read and write, as is. */
  int fd = open(full, (flags & ~(O_TRUNC | O_APPEND | O_DIRECT | O_WRONLY | O_RDONLY)) | O_RDWR, mode);
  if (fd < 0) return -errno;
  if (flags & O_TRUNC) truncate_node(node_of(fd), 0);
  fi->fh = fd;
  return 0;
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  return open_backing(path, fi->flags | O_CREAT, mode, fi);
}

static int pc_open(const char *path, struct fuse_file_info *fi) {
  if (strcmp(path, CONTROL) == 0) {
    fi->fh = (uint64_t)-1;
    fi->direct_io = 1;
    return 0;
  }
  return open_backing(path, fi->flags, 0, fi);
}

static int pc_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  if (fi->fh == (uint64_t)-1) {
    char text[64];
    int length = snprintf(text, sizeof text, "dirty %llu\n", dirty);
    if (off >= length) return 0;
    size_t count = (size_t)(length - off) < size ? (size_t)(length - off) : size;
    memcpy(buf, text + off, count);
    return (int)count;
  }
  ino_t ino = ino_of_fd(fi->fh);
  Node *n = node_find(ino);
  if (!n) {
    ssize_t got = pread(fi->fh, buf, size, off);
    return got < 0 ? -errno : (int)got;
  }
  if (off >= n->size) return 0;
  if ((off_t)size > n->size - off) size = n->size - off;
  char page[PAGE];
  for (size_t done = 0; done < size;) {
    off_t at = off + done, index = at / PAGE, within = at % PAGE;
    size_t count = (size_t)(PAGE - within) < size - done ? (size_t)(PAGE - within) : size - done;
    Page *p = page_find(ino, index);
    if (p)
      memcpy(buf + done, p->data + within, count);
    else {
      backing_page(n, index, page);
      memcpy(buf + done, page + within, count);
    }
    done += count;
  }
  return (int)size;
}

static int pc_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  if (fi->fh == (uint64_t)-1) {
    char command[64] = {0};
    memcpy(command, buf, size < sizeof command - 1 ? size : sizeof command - 1);
    unsigned long long seed;
    if (sscanf(command, "cut %llu", &seed) == 1) {
      rng = seed ? seed : 1;
      settle_all(1);
    } else if (strncmp(command, "sync", 4) == 0)
      settle_all(0);
    else
      return -EINVAL;
    return (int)size;
  }
  Node *n = node_of(fi->fh);
  if (!n) return -errno;
  for (size_t done = 0; done < size;) {
    off_t at = off + done, index = at / PAGE, within = at % PAGE;
    size_t count = (size_t)(PAGE - within) < size - done ? (size_t)(PAGE - within) : size - done;
    Page *p = page_find(n->ino, index);
    if (!p) {
      p = malloc(sizeof *p);
      p->ino = n->ino;
      p->index = index;
      backing_page(n, index, p->data);
      if (index * PAGE >= n->size) memset(p->data, 0, PAGE);
      unsigned b = bucket(n->ino, index);
      p->next = pages[b];
      pages[b] = p;
      dirty++;
    }
    memcpy(p->data + within, buf + done, count);
    done += count;
  }
  if (off + (off_t)size > n->size) n->size = off + size;
  return (int)size;
}

static int pc_statfs(const char *path, struct statvfs *st) {
  (void)path;
  return statvfs(backing, st) == 0 ? 0 : -errno;
}

static int pc_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  if (fi->fh != (uint64_t)-1) close(fi->fh);
  return 0;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path, (void)datasync;
  if (fi->fh == (uint64_t)-1) return 0;
  Node *n = node_find(ino_of_fd(fi->fh));
  if (n) settle(n, 0);
  return 0;
}

static int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path, (void)datasync, (void)fi;
  return 0;
}

static int pc_fallocate(const char *path, int mode, off_t off, off_t length, struct fuse_file_info *fi) {
  (void)path, (void)mode, (void)off, (void)length, (void)fi;
  return -EOPNOTSUPP;
}

static const struct fuse_operations operations = {
    .init = pc_init,
    .getattr = pc_getattr,
    .opendir = pc_opendir,
    .readdir = pc_readdir,
    .releasedir = pc_releasedir,
    .mkdir = pc_mkdir,
    .unlink = pc_unlink,
    .rmdir = pc_rmdir,
    .rename = pc_rename,
    .chmod = pc_chmod,
    .chown = pc_chown,
    .utimens = pc_utimens,
    .truncate = pc_truncate,
    .create = pc_create,
    .open = pc_open,
    .read = pc_read,
    .write = pc_write,
    .statfs = pc_statfs,
    .release = pc_release,
    .fsync = pc_fsync,
    .fsyncdir = pc_fsyncdir,
    .fallocate = pc_fallocate,
};

int main(int argc, char *argv[]) {
  if (argc < 3) {
    fprintf(stderr, "usage: powercut-fs BACKING MOUNTPOINT [FUSE options]\n");
    return 2;
  }
  static char resolved[PATH_MAX];
  if (!realpath(argv[1], resolved)) {
    perror(argv[1]);
    return 1;
  }
  backing = resolved;
  argv[1] = argv[0];
  return fuse_main(argc - 1, argv + 1, &operations, NULL);
}
