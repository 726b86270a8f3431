// SPDX-License-Identifier: GPL-2.0-only
//
// debugfs: files by path ("rdma_mrcore/devices/local/counters") that a test
// opens with mirror_debugfs_fops() and mirror_debugfs_data(); and the few
// file helpers the core's debugfs files call.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "mrcore_internal.h"

// A directory: its path.  The kernel's struct dentry is opaque to the core.
struct dentry {
	std::string path;
};

namespace {

struct DebugfsFile {
	const file_operations *fops;
	void *data;
};

// Files by path; directories by path, each made once and kept (a node map:
// the dentry the core holds never moves).
std::map<std::string, DebugfsFile> &debugfs_files()
{
	static std::map<std::string, DebugfsFile> m;
	return m;
}

std::map<std::string, dentry> &debugfs_dirs()
{
	static std::map<std::string, dentry> m;
	return m;
}

std::string debugfs_path(const dentry *parent, const char *name)
{
	return parent ? parent->path + "/" + name : name;
}

} // namespace

extern "C" struct dentry *debugfs_create_dir(const char *name,
					     struct dentry *parent)
{
	std::string path = debugfs_path(parent, name);
	auto [it, added] = debugfs_dirs().try_emplace(path, dentry{path});

	return &it->second;
}

extern "C" struct dentry *
debugfs_create_file(const char *name, unsigned short mode,
		    struct dentry *parent, void *data,
		    const struct file_operations *fops)
{
	debugfs_files()[debugfs_path(parent, name)] = {fops, data};
	return nullptr;
}

extern "C" void debugfs_remove_recursive(struct dentry *d)
{
	if (!d)
		return;
	const std::string prefix = debugfs_path(d, "");
	auto &m = debugfs_files();

	for (auto it = m.lower_bound(prefix);
	     it != m.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
		it = m.erase(it);
}

extern "C" const struct file_operations *mirror_debugfs_fops(const char *name)
{
	auto it = debugfs_files().find(name);

	return it == debugfs_files().end() ? nullptr : it->second.fops;
}

extern "C" void *mirror_debugfs_data(const char *name)
{
	auto it = debugfs_files().find(name);

	return it == debugfs_files().end() ? nullptr : it->second.data;
}

extern "C" loff_t default_llseek(struct file *f, loff_t off, int whence)
{
	return off;
}

extern "C" unsigned long copy_from_user(void *to, const void *from,
					unsigned long n)
{
	std::memcpy(to, from, n);
	return 0;
}

extern "C" ssize_t simple_read_from_buffer(void *to, size_t count,
					   loff_t *ppos, const void *from,
					   size_t available)
{
	if (*ppos < 0)
		return -EINVAL;
	if (static_cast<size_t>(*ppos) >= available || !count)
		return 0;
	size_t n = std::min(count, available - static_cast<size_t>(*ppos));

	std::memcpy(to, static_cast<const char *>(from) + *ppos, n);
	*ppos += n;
	return static_cast<ssize_t>(n);
}
