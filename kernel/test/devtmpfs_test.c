// SPDX-License-Identifier: GPL-2.0
/*
 * devtmpfs_test - create and remove character devices on request, so
 * that a test in a VM can check from userspace what devtmpfs promises:
 * a node appears with the device, 0600 root:root, and disappears with
 * it together with its empty parent directories, whatever userspace
 * did to its mode or owner.
 *
 *   echo NAME > /sys/class/devtmpfs_test/create
 *   echo NAME > /sys/class/devtmpfs_test/remove
 *
 * A '!' in NAME is a '/' in the node name, as for every device, so
 * "rescue-test!sub!node" is /dev/rescue-test/sub/node.  Devices still
 * present are removed when the module is unloaded.
 *
 * Reading a node gives the name of the device that has its dev_t now,
 * so a test can see which device a node opens; opening a node whose
 * dev_t no device has fails with -ENXIO.  Minors are reused lowest
 * first, so a device created after another was removed gets its dev_t.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/version.h>

/*
 * Built against each kernel base: 6.4 made the class attribute
 * callbacks take const pointers and dropped struct class's owner.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define CLASS_CONST const
#else
#define CLASS_CONST
#endif

#define TEST_MINORS 4096

struct test_dev {
	struct list_head list;
	struct device *dev;
};

static dev_t test_devt;
static struct cdev test_cdev;
static DEFINE_IDA(test_minors);
static DEFINE_MUTEX(test_lock);
static LIST_HEAD(test_devs);
static struct class test_class;

/* The sysfs value without its trailing newline, or NULL if empty. */
static char *name_from_buf(const char *buf, size_t count)
{
	char *name = kstrndup(buf, count, GFP_KERNEL);

	if (name) {
		strim(name);
		if (!*name) {
			kfree(name);
			name = NULL;
		}
	}
	return name;
}

static struct test_dev *find_dev(const char *name)
{
	struct test_dev *td;

	list_for_each_entry(td, &test_devs, list)
		if (!strcmp(dev_name(td->dev), name))
			return td;
	return NULL;
}

static void destroy_dev(struct test_dev *td)
{
	dev_t devt = td->dev->devt;

	list_del(&td->list);
	device_destroy(&test_class, devt);
	ida_free(&test_minors, MINOR(devt));
	kfree(td);
}

/* The name of the device that has the node's dev_t, for test_read(). */
static int test_open(struct inode *inode, struct file *file)
{
	struct test_dev *td;
	char *name = NULL;
	int err = -ENXIO;

	mutex_lock(&test_lock);
	list_for_each_entry(td, &test_devs, list) {
		if (td->dev->devt == inode->i_rdev) {
			name = kasprintf(GFP_KERNEL, "%s\n", dev_name(td->dev));
			err = name ? 0 : -ENOMEM;
			break;
		}
	}
	mutex_unlock(&test_lock);
	file->private_data = name;
	return err;
}

static ssize_t test_read(struct file *file, char __user *buf, size_t count,
			 loff_t *pos)
{
	const char *name = file->private_data;

	return simple_read_from_buffer(buf, count, pos, name, strlen(name));
}

static int test_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations test_fops = {
	.owner = THIS_MODULE,
	.open = test_open,
	.read = test_read,
	.release = test_release,
	.llseek = default_llseek,
};

static ssize_t create_store(CLASS_CONST struct class *class,
			    CLASS_CONST struct class_attribute *attr,
			    const char *buf, size_t count)
{
	struct test_dev *td;
	char *name;
	int minor, err;

	name = name_from_buf(buf, count);
	if (!name)
		return -EINVAL;

	mutex_lock(&test_lock);
	err = -EEXIST;
	if (find_dev(name))
		goto out;

	err = -ENOMEM;
	td = kzalloc(sizeof(*td), GFP_KERNEL);
	if (!td)
		goto out;

	minor = ida_alloc_max(&test_minors, TEST_MINORS - 1, GFP_KERNEL);
	if (minor < 0) {
		err = minor;
		kfree(td);
		goto out;
	}

	td->dev = device_create(&test_class, NULL, MKDEV(MAJOR(test_devt), minor),
				NULL, "%s", name);
	if (IS_ERR(td->dev)) {
		err = PTR_ERR(td->dev);
		ida_free(&test_minors, minor);
		kfree(td);
		goto out;
	}
	list_add(&td->list, &test_devs);
	err = 0;
out:
	mutex_unlock(&test_lock);
	if (err)
		pr_err("unable to create %s: %d\n", name, err);
	kfree(name);
	return err ? err : count;
}
static CLASS_ATTR_WO(create);

static ssize_t remove_store(CLASS_CONST struct class *class,
			    CLASS_CONST struct class_attribute *attr,
			    const char *buf, size_t count)
{
	struct test_dev *td;
	char *name;
	int err = -ENOENT;

	name = name_from_buf(buf, count);
	if (!name)
		return -EINVAL;

	mutex_lock(&test_lock);
	td = find_dev(name);
	if (td) {
		destroy_dev(td);
		err = 0;
	}
	mutex_unlock(&test_lock);
	kfree(name);
	return err ? err : count;
}
static CLASS_ATTR_WO(remove);

static struct attribute *test_class_attrs[] = {
	&class_attr_create.attr,
	&class_attr_remove.attr,
	NULL,
};
ATTRIBUTE_GROUPS(test_class);

static struct class test_class = {
	.name = KBUILD_MODNAME,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	.owner = THIS_MODULE,
#endif
	.class_groups = test_class_groups,
};

static int __init devtmpfs_test_init(void)
{
	int err;

	err = alloc_chrdev_region(&test_devt, 0, TEST_MINORS, KBUILD_MODNAME);
	if (err)
		return err;

	cdev_init(&test_cdev, &test_fops);
	test_cdev.owner = THIS_MODULE;
	err = cdev_add(&test_cdev, test_devt, TEST_MINORS);
	if (err)
		goto unregister;

	err = class_register(&test_class);
	if (!err)
		return 0;
	cdev_del(&test_cdev);
unregister:
	unregister_chrdev_region(test_devt, TEST_MINORS);
	return err;
}

static void __exit devtmpfs_test_exit(void)
{
	struct test_dev *td, *next;

	mutex_lock(&test_lock);
	list_for_each_entry_safe(td, next, &test_devs, list)
		destroy_dev(td);
	mutex_unlock(&test_lock);
	class_unregister(&test_class);
	cdev_del(&test_cdev);
	unregister_chrdev_region(test_devt, TEST_MINORS);
}

module_init(devtmpfs_test_init);
module_exit(devtmpfs_test_exit);

MODULE_DESCRIPTION("Create and remove devices to test devtmpfs from userspace");
MODULE_LICENSE("GPL");
