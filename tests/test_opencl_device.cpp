/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The OpenCL device layer on whatever devices this machine has (PoCL's CPU
 * device in CI): listing, selection by spec and its error messages, and the
 * program binary cache, including damaged entries.
 */
#include <gtest/gtest.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "core/opencl/device/device.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/device/program_cache.h"
#include "test_support.h"

using namespace waldboost;
using waldboost_test::lbp_table;
using namespace waldboost::opencl;

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return s;
}

/* The message of the Error `f` throws; fails the test when it throws none. */
template <typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no waldboost::Error thrown";
    return "";
}

/* The kind's name of the Error `f` throws ("" when it throws none). */
template <typename F>
std::string kind_of(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return to_string(e.kind());
    }
    ADD_FAILURE() << "no waldboost::Error thrown";
    return "";
}

#define SKIP_WITHOUT_DEVICES()                                                        \
    do {                                                                              \
        if (list_devices().empty())                                                   \
            GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd for the CPU)"; \
    } while (0)

std::string read_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& data)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

std::vector<std::string> files_in(const std::string& directory)
{
    std::vector<std::string> names;
    if (GDir* dir = g_dir_open(directory.c_str(), 0, nullptr)) {
        while (const char* name = g_dir_read_name(dir))
            names.push_back(name);
        g_dir_close(dir);
    }
    return names;
}

void remove_tree(const std::string& path)
{
    if (g_file_test(path.c_str(), G_FILE_TEST_IS_DIR)) {
        for (const std::string& name : files_in(path))
            remove_tree(path + "/" + name);
        g_rmdir(path.c_str());
    } else {
        g_unlink(path.c_str());
    }
}

/* A fresh directory, removed with its contents at the end of the test. */
struct TempDir {
    std::string path;
    TempDir()
    {
        gchar* p = g_dir_make_tmp("waldboost-cl-test-XXXXXX", nullptr);
        path = p ? p : "";
        g_free(p);
    }
    ~TempDir() { remove_tree(path); }
};

/* Unique per run, so that the driver's own kernel cache (PoCL keeps one in
 * ~/.cache/pocl) does not turn our first build into a cached one. */
std::string nonce()
{
    static const std::string value =
        std::to_string(g_get_real_time()) + "-" + std::to_string(static_cast<long>(getpid()));
    return value;
}

/* out[i] = in[i] * FACTOR + 1 */
std::string scale_source()
{
    return "/* " + nonce() +
           " */\n"
           "#ifndef FACTOR\n#define FACTOR 2\n#endif\n"
           "__kernel void scale(__global const int* in, __global int* out)\n"
           "{\n"
           "    size_t i = get_global_id(0);\n"
           "    out[i] = in[i] * FACTOR + 1;\n"
           "}\n";
}

/* Mirrors program_cache.cpp's entry layout. */
constexpr size_t kChecksumOffset = 88;
constexpr size_t kHeaderSize = 152;

class ProgramCache : public ::testing::Test {
protected:
    void SetUp() override
    {
        SKIP_WITHOUT_DEVICES();
        selected_ = select_device("auto");
        context_ = cl::Context(selected_.device);
        settings_.directory = dir_.path;
    }

    cl::Program build(const std::string& source, const std::string& options, BuildReport* report)
    {
        return build_program(context_, selected_.device, source, options, settings_, report);
    }

    /* Runs `scale` on 0..63 and checks out[i] = i * factor + 1. */
    void expect_scale_works(const cl::Program& program, int factor)
    {
        const size_t n = 64;
        std::vector<cl_int> in(n), out(n, -1);
        std::iota(in.begin(), in.end(), 0);
        cl::CommandQueue queue(context_, selected_.device);
        cl::Buffer input(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_int), in.data());
        cl::Buffer output(context_, CL_MEM_WRITE_ONLY, n * sizeof(cl_int));
        cl::Kernel kernel(program, "scale");
        kernel.setArg(0, input);
        kernel.setArg(1, output);
        queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n));
        queue.enqueueReadBuffer(output, CL_TRUE, 0, n * sizeof(cl_int), out.data());
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(out[i], static_cast<cl_int>(i) * factor + 1) << "at " << i;
    }

    SelectedDevice selected_;
    cl::Context context_;
    TempDir dir_;
    CacheSettings settings_;
};

}  // namespace

/* --- listing and selection ---------------------------------------------- */

TEST(Devices, ListsDevicesWithSaneProperties)
{
    SKIP_WITHOUT_DEVICES();
    for (const DeviceInfo& d : list_devices()) {
        SCOPED_TRACE(describe(d));
        EXPECT_FALSE(d.device_name.empty());
        EXPECT_FALSE(d.platform_name.empty());
        EXPECT_TRUE(d.type == "GPU" || d.type == "CPU" || d.type == "accelerator" || d.type == "other");
        EXPECT_GT(d.compute_units, 0u);
        EXPECT_GT(d.max_work_group_size, 0u);
        EXPECT_GT(d.global_memory, 0u);
        EXPECT_GT(d.local_memory, 0u);
        EXPECT_GT(d.max_alloc, 0u);
        EXPECT_LE(d.max_alloc, d.global_memory);
        EXPECT_NE(parse_opencl_version(d.device_version), std::make_pair(0, 0)) << d.device_version;
    }
}

TEST(Devices, FindsPoclWhenInstalled)
{
    if (!g_file_test("/etc/OpenCL/vendors/pocl.icd", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "pocl-opencl-icd is not installed";
    const auto devices = list_devices();
    const bool found = std::any_of(devices.begin(), devices.end(), [](const DeviceInfo& d) {
        return d.platform_name == "Portable Computing Language" && d.type == "CPU";
    });
    EXPECT_TRUE(found);
}

TEST(Devices, DescribeIsOneLine)
{
    SKIP_WITHOUT_DEVICES();
    const DeviceInfo d = list_devices().front();
    const std::string line = describe(d);
    EXPECT_EQ(line.rfind("0:0 " + d.device_name + " (" + d.type + ", " + d.platform_name + ", ", 0), 0u) << line;
    EXPECT_NE(line.find(" compute units, "), std::string::npos) << line;
    EXPECT_NE(line.find(" local, OpenCL C "), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(Devices, AutoPrefersGpuThenAcceleratorThenCpu)
{
    SKIP_WITHOUT_DEVICES();
    const auto devices = list_devices();
    std::string expected_type = devices.front().type;
    for (const char* type : {"CPU", "accelerator", "GPU"})
        if (std::any_of(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
                return d.type == type;
            }))
            expected_type = type;
    EXPECT_EQ(select_device("auto").info.type, expected_type);
    EXPECT_EQ(select_device("").info.type, expected_type);
    EXPECT_EQ(select_device("AUTO").info.type, expected_type);
}

TEST(Devices, SelectsByTypeAnyCase)
{
    SKIP_WITHOUT_DEVICES();
    const auto devices = list_devices();
    for (const auto& spec_and_type : std::vector<std::pair<std::string, std::string>>{
             {"cpu", "CPU"}, {"CPU", "CPU"}, {"gpu", "GPU"}, {"Gpu", "GPU"}, {"accelerator", "accelerator"}}) {
        /* Named copies, not a structured binding: lambdas may capture
         * those only from C++20 on (clang refuses them in C++17). */
        const std::string& spec = spec_and_type.first;
        const std::string& type = spec_and_type.second;
        SCOPED_TRACE(spec);
        const bool present = std::any_of(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
            return d.type == type;
        });
        if (present) {
            EXPECT_EQ(select_device(spec).info.type, type);
        } else {
            /* A clear message that lists what there is. */
            const std::string message = error_of([&] {
                select_device(spec);
            });
            EXPECT_NE(message.find("no OpenCL device matches '" + spec + "'"), std::string::npos) << message;
            EXPECT_NE(message.find("there is no " + type + " device"), std::string::npos) << message;
            EXPECT_NE(message.find("available: 0:0 " + devices.front().device_name), std::string::npos) << message;
        }
    }
}

TEST(Devices, SelectsByIndex)
{
    SKIP_WITHOUT_DEVICES();
    const SelectedDevice chosen = select_device("0:0");
    EXPECT_EQ(chosen.info.platform_index, 0);
    EXPECT_EQ(chosen.info.device_index, 0);
    EXPECT_EQ(chosen.device.getInfo<CL_DEVICE_NAME>(), list_devices().front().device_name);
    EXPECT_EQ(chosen.platform.getInfo<CL_PLATFORM_NAME>(), chosen.info.platform_name);

    const std::string message = error_of([] {
        select_device("9:9");
    });
    EXPECT_NE(message.find("no OpenCL device matches '9:9' (there is no device 9:9); available: 0:0 "),
              std::string::npos)
        << message;
}

TEST(Devices, SelectsByNameVendorOrPlatformAnyCase)
{
    SKIP_WITHOUT_DEVICES();
    const DeviceInfo first = list_devices().front();
    /* Part of the name, in another case. */
    std::string part = first.device_name.substr(0, std::min<size_t>(first.device_name.size(), 6));
    std::transform(part.begin(), part.end(), part.begin(), [](unsigned char c) {
        return static_cast<char>(std::isupper(c) ? std::tolower(c) : std::toupper(c));
    });
    EXPECT_NE(lower(select_device(part).info.device_name).find(lower(part)), std::string::npos);

    const SelectedDevice by_platform = select_device(lower(first.platform_name));
    EXPECT_EQ(by_platform.info.platform_name, first.platform_name);

    /* PoCL's device names change between releases ("pthread-..." in 3.x,
     * "cpu-..." in 5.x); its platform name does not. */
    if (first.platform_name == "Portable Computing Language") {
        EXPECT_EQ(select_device("PORTABLE").info.platform_name, first.platform_name);
    }
}

/* DL Streamer's forms ("GPU.0", "CPU"): a type and the index among the
 * devices of that type; and the driver's name, from the device version
 * ("pocl"). */
TEST(Devices, SelectsDlStreamerFormsAndDriverNames)
{
    SKIP_WITHOUT_DEVICES();
    const auto devices = list_devices();
    for (const char* type : {"CPU", "GPU"}) {
        std::vector<DeviceInfo> of_type;
        for (const DeviceInfo& d : devices)
            if (d.type == type)
                of_type.push_back(d);
        for (size_t i = 0; i < of_type.size(); ++i) {
            const SelectedDevice s = select_device(std::string(type) + "." + std::to_string(i));
            EXPECT_EQ(s.info.platform_index, of_type[i].platform_index) << type << "." << i;
            EXPECT_EQ(s.info.device_index, of_type[i].device_index) << type << "." << i;
        }
        const std::string past = lower(type) + "." + std::to_string(of_type.size());
        const std::string message = error_of([&] {
            select_device(past);
        });
        EXPECT_NE(message.find("no OpenCL device matches '" + past + "'"), std::string::npos) << message;
        EXPECT_NE(message.find(of_type.empty() ? std::string("there is no ") + type + " device" : "numbered from 0"),
                  std::string::npos)
            << message;
    }
    for (const DeviceInfo& d : devices)
        if (d.device_version.find("PoCL") != std::string::npos) {
            EXPECT_NE(select_device("pocl").info.device_version.find("PoCL"), std::string::npos);
            break;
        }
}

TEST(Devices, UnknownNameListsWhatIsAvailable)
{
    SKIP_WITHOUT_DEVICES();
    const std::string message = error_of([] {
        select_device("no-such-device");
    });
    EXPECT_EQ(message.rfind("no OpenCL device matches 'no-such-device'; available: 0:0 ", 0), 0u) << message;
    for (const DeviceInfo& d : list_devices())
        EXPECT_NE(message.find(d.device_name), std::string::npos) << message;
}

/* With no OpenCL platform at all (ocl-icd's CL_PLATFORM_NOT_FOUND_KHR),
 * listing is empty and selecting says what to install. Runs in a fresh
 * process so the ICD loader starts with an empty vendor directory. */
TEST(DevicesDeathTest, NoPlatformIsAnEmptyListAndAnActionableError)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            TempDir empty;
            g_setenv("OCL_ICD_VENDORS", empty.path.c_str(), TRUE);
            g_unsetenv("OCL_ICD_FILENAMES");
            if (!list_devices().empty())
                std::_Exit(2);
            try {
                select_device("auto");
            } catch (const Error& e) {
                std::fprintf(stderr, "%s\n", e.what());
                std::_Exit(e.kind() == ErrorKind::NoDevice ? 0 : 4);
            }
            std::_Exit(3);
        },
        ::testing::ExitedWithCode(0),
        "no OpenCL device found: install an OpenCL driver \\(for the CPU, Debian's pocl-opencl-icd\\) and check "
        "with clinfo");
}

/* A driver that is installed but lists no device is named, with what to
 * set, rather than "install a driver": PoCL lists none when it cannot
 * create its cache folder (a service's user whose home does not exist or
 * cannot be written). In a fresh process that sees PoCL's ICD only, with
 * POCL_CACHE_DIR where nothing can be created. A PoCL that lists its
 * device all the same says so (nothing to check there). */
TEST(DevicesDeathTest, PoclWithoutACacheFolderIsNamedWithWhatToSet)
{
    const std::string icd = "/etc/OpenCL/vendors/pocl.icd";
    if (!g_file_test(icd.c_str(), G_FILE_TEST_IS_REGULAR))
        GTEST_SKIP() << "no PoCL here (" << icd << ")";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            TempDir vendors;
            gchar* text = nullptr;
            int code = 6;
            if (g_file_get_contents(icd.c_str(), &text, nullptr, nullptr) &&
                g_file_set_contents((vendors.path + "/pocl.icd").c_str(), text, -1, nullptr)) {
                g_setenv("OCL_ICD_VENDORS", vendors.path.c_str(), TRUE);
                g_unsetenv("OCL_ICD_FILENAMES");
                g_setenv("POCL_CACHE_DIR", "/proc/waldboost-test-no-cache", TRUE);
                code = 3;
                if (!list_devices().empty()) {
                    std::fprintf(stderr, "this PoCL lists its device without a cache folder\n");
                    code = 0;
                } else {
                    try {
                        select_device("auto");
                    } catch (const Error& e) {
                        std::fprintf(stderr, "%s\n", e.what());
                        code = e.kind() == ErrorKind::NoDevice ? 0 : 4;
                    }
                }
            }
            g_free(text);
            remove_tree(vendors.path);
            std::_Exit(code);
        },
        ::testing::ExitedWithCode(0),
        "^(no OpenCL device found: OpenCL platform 0 \\(Portable Computing Language\\) is installed but lists no "
        "device: PoCL lists none when it cannot create its cache folder.*set POCL_CACHE_DIR to a folder this user "
        "can write|this PoCL lists its device without a cache folder)");
}

/* --- error reporting ------------------------------------------------------ */

TEST(Errors, NamesOpenClErrorCodes)
{
    EXPECT_EQ(error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_EQ(error_name(CL_INVALID_BINARY), "CL_INVALID_BINARY");
    EXPECT_EQ(error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
    EXPECT_EQ(error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_EQ(error_name(-12345), "OpenCL error -12345");
    EXPECT_STREQ(to_error(cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer"), "allocating the image").what(),
                 "allocating the image: clCreateBuffer failed with CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
}

/* The kinds callers report by (the element's GStreamer error codes). */
TEST(Errors, OpenClCodesMapToKinds)
{
    for (cl_int code :
         {CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_INVALID_BUFFER_SIZE})
        EXPECT_STREQ(to_string(error_kind(code)), to_string(ErrorKind::OutOfResources)) << error_name(code);
    for (cl_int code : {CL_BUILD_PROGRAM_FAILURE, CL_COMPILER_NOT_AVAILABLE, CL_INVALID_BUILD_OPTIONS})
        EXPECT_STREQ(to_string(error_kind(code)), to_string(ErrorKind::KernelBuild)) << error_name(code);
    for (cl_int code : {CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_AVAILABLE, -1001})
        EXPECT_STREQ(to_string(error_kind(code)), to_string(ErrorKind::NoDevice)) << error_name(code);
    for (cl_int code : {CL_INVALID_VALUE, CL_INVALID_COMMAND_QUEUE, CL_INVALID_KERNEL_ARGS, CL_MAP_FAILURE, -12345})
        EXPECT_STREQ(to_string(error_kind(code)), to_string(ErrorKind::Device)) << error_name(code);
    EXPECT_STREQ(to_string(to_error(cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer"), "x").kind()),
                 to_string(ErrorKind::OutOfResources));
    EXPECT_STREQ(to_string(to_error(cl::Error(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel"), "x").kind()),
                 to_string(ErrorKind::Device));
}

/* Nothing matching a spec (or no device at all) is NoDevice. */
TEST(Errors, NoMatchingDeviceIsNoDevice)
{
    for (const char* spec : {"no-such-device", "99:99"}) {
        SCOPED_TRACE(spec);
        EXPECT_EQ(kind_of([&] {
                      select_device(spec);
                  }),
                  to_string(ErrorKind::NoDevice));
    }
}

/* A valid 24x24 classifier of one weak classifier. */
Classifier one_weak_classifier()
{
    Classifier classifier;
    classifier.label = "test";
    classifier.window_width = classifier.window_height = 24;
    WeakClassifier weak;
    weak.feature = waldboost::LbpFeature{0, 0, 8, 8};
    lbp_table(weak).fill(0.5f);
    classifier.weak.push_back(weak);
    return classifier;
}

/* The injected fault is CL_OUT_OF_RESOURCES: a failed allocation, here the
 * engine's upload of the classifier, is OutOfResources. */
TEST(ErrorsDeathTest, InjectedAllocationFaultIsOutOfResources)
{
    SKIP_WITHOUT_DEVICES();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            g_setenv("WALDBOOST_CL_FAULT", "buffer-create", TRUE);
            g_setenv("WALDBOOST_CACHE_DISABLE", "1", TRUE);
            g_setenv("WALDBOOST_TUNING_DISABLE", "1", TRUE);
            try {
                maybe_inject_fault("buffer-create");
                std::_Exit(1);
            } catch (const cl::Error& e) {
                if (to_error(e, "allocating").kind() != ErrorKind::OutOfResources)
                    std::_Exit(2);
            }
            try {
                Engine engine(one_weak_classifier(), EngineConfig{});
            } catch (const Error& e) {
                std::fprintf(stderr, "%s\n", e.what());
                std::_Exit(e.kind() == ErrorKind::OutOfResources ? 0 : 4);
            }
            std::_Exit(3);
        },
        ::testing::ExitedWithCode(0), "buffer-create failed with CL_OUT_OF_RESOURCES");
}

TEST(Errors, ParsesOpenClVersions)
{
    EXPECT_EQ(parse_opencl_version("OpenCL 1.2 CUDA"), std::make_pair(1, 2));
    EXPECT_EQ(parse_opencl_version("OpenCL 3.0 PoCL HSTR: pthread-x86_64"), std::make_pair(3, 0));
    EXPECT_EQ(parse_opencl_version("OpenCL C 1.2 PoCL"), std::make_pair(1, 2));
    EXPECT_EQ(parse_opencl_version("OpenCL 1.1 Mesa"), std::make_pair(1, 1));
    EXPECT_EQ(parse_opencl_version("garbage"), std::make_pair(0, 0));
    EXPECT_EQ(parse_opencl_version(""), std::make_pair(0, 0));
}

/* WALDBOOST_CL_FAULT is read once per process: set it in a fresh one. */
TEST(ErrorsDeathTest, InjectedProgramBuildFaultIsAnError)
{
    SKIP_WITHOUT_DEVICES();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            g_setenv("WALDBOOST_CL_FAULT", "program-build", TRUE);
            maybe_inject_fault("enqueue");  // another call: no fault
            const SelectedDevice selected = select_device("auto");
            const cl::Context context(selected.device);
            CacheSettings off;
            off.enabled = false;
            try {
                build_program(context, selected.device, scale_source(), "", off);
            } catch (const Error& e) {
                std::fprintf(stderr, "%s\n", e.what());
                /* A failed build is KernelBuild whatever the code. */
                std::_Exit(e.kind() == ErrorKind::KernelBuild ? 0 : 4);
            }
            std::_Exit(1);
        },
        ::testing::ExitedWithCode(0), "OpenCL program build failed on .*program-build failed with CL_OUT_OF_RESOURCES");
}

/* The counted forms: CALL:N fails the N-th call only, CALL:N+ from the N-th on. */
TEST(ErrorsDeathTest, CountedFaultsFailTheChosenCalls)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto pattern = [](const char* spec) {
        g_setenv("WALDBOOST_CL_FAULT", spec, TRUE);
        std::string failed;
        try {
            for (int i = 0; i < 6; ++i) {
                maybe_inject_fault("map");  // another call: never fails, never counts
                try {
                    maybe_inject_fault("enqueue");
                    failed += '.';
                } catch (const cl::Error& e) {
                    failed += (std::string(e.what()) == "enqueue" && e.err() == CL_OUT_OF_RESOURCES) ? 'X' : '?';
                }
            }
        } catch (const Error& e) {
            /* An invalid value: the first call, whichever it is, refuses it. */
            std::fprintf(stderr, "refused%s: %s\n", failed.empty() ? "" : " late", e.what());
            std::_Exit(e.kind() == ErrorKind::BadParameter ? 0 : 1);
        }
        std::fprintf(stderr, "%s\n", failed.c_str());
        std::_Exit(0);
    };
    EXPECT_EXIT(pattern("enqueue:3"), ::testing::ExitedWithCode(0), "^\\.\\.X\\.\\.\\.\n$");
    EXPECT_EXIT(pattern("enqueue:2+"), ::testing::ExitedWithCode(0), "^\\.XXXXX\n$");
    EXPECT_EXIT(pattern("enqueue"), ::testing::ExitedWithCode(0), "^XXXXXX\n$");
    /* These two were once ignored with a warning (no fault at all): now
     * refused, as every invalid value (FaultPlan.RefusesInvalidValues). */
    EXPECT_EXIT(pattern("enqueue:0"), ::testing::ExitedWithCode(0),
                "^refused: WALDBOOST_CL_FAULT=\"enqueue:0\" is not valid.*\n$");
    EXPECT_EXIT(pattern("enqueue:x+"), ::testing::ExitedWithCode(0), "^refused: WALDBOOST_CL_FAULT=.*\n$");
    /* The silent ones: an unknown call, a stray space, no name, a huge N. */
    EXPECT_EXIT(pattern("enqueu"), ::testing::ExitedWithCode(0), "^refused: WALDBOOST_CL_FAULT=\"enqueu\".*\n$");
    EXPECT_EXIT(pattern("enqueue "), ::testing::ExitedWithCode(0), "^refused: WALDBOOST_CL_FAULT=\"enqueue \".*\n$");
    EXPECT_EXIT(pattern(":3"), ::testing::ExitedWithCode(0), "^refused: WALDBOOST_CL_FAULT=\":3\".*\n$");
    EXPECT_EXIT(pattern("enqueue:99999999999999999999"), ::testing::ExitedWithCode(0),
                "^refused: WALDBOOST_CL_FAULT=.*too large.*\n$");
}

TEST(FaultPlan, ParsesTheValidForms)
{
    const FaultPlan none = parse_fault_plan("");
    EXPECT_TRUE(none.call.empty());
    for (const std::string& name : fault_call_names()) {
        const FaultPlan every = parse_fault_plan(name);
        EXPECT_EQ(every.call, name);
        EXPECT_EQ(every.first, 1);
        EXPECT_TRUE(every.and_later);
    }
    const FaultPlan once = parse_fault_plan("buffer-create:3");
    EXPECT_EQ(once.call, "buffer-create");
    EXPECT_EQ(once.first, 3);
    EXPECT_FALSE(once.and_later);
    const FaultPlan from = parse_fault_plan("wait:12+");
    EXPECT_EQ(from.call, "wait");
    EXPECT_EQ(from.first, 12);
    EXPECT_TRUE(from.and_later);
    EXPECT_EQ(parse_fault_plan("map:9223372036854775807").first, 9223372036854775807L);
}

/* Each of these once injected nothing and said nothing (or only warned), so
 * that a fault test could pass without its fault. */
TEST(FaultPlan, RefusesInvalidValues)
{
    const char* bad[] = {
        "bogus",
        "enqueu",
        "Enqueue",
        "buffer_create",
        "enqueue ",
        " enqueue",
        "enqueue\t",
        ":3",
        ":",
        ":3+",
        "enqueue:",
        "enqueue:+",
        "enqueue:0",
        "enqueue:0+",
        "enqueue:-1",
        "enqueue:+3",
        "enqueue: 3",
        "enqueue:3 ",
        "enqueue:3+ ",
        "enqueue:3++",
        "enqueue:x",
        "enqueue:3:4",
        "enqueue:0x10",
        "enqueue:99999999999999999999",
        "enqueue:9223372036854775808+",
    };
    for (const char* value : bad) {
        SCOPED_TRACE(std::string("\"") + value + "\"");
        try {
            parse_fault_plan(value);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
            const std::string message = e.what();
            EXPECT_NE(message.find("WALDBOOST_CL_FAULT=\"" + std::string(value) + "\""), std::string::npos) << message;
            for (const std::string& name : fault_call_names())
                EXPECT_NE(message.find(name), std::string::npos) << message;
        }
    }
}

/* Every call, including the first the engine makes when it is created,
 * refuses an invalid value rather than run without the fault. */
TEST(ErrorsDeathTest, InvalidFaultValueFailsEngineCreation)
{
    SKIP_WITHOUT_DEVICES();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            g_setenv("WALDBOOST_CL_FAULT", "buffer-create ", TRUE);
            g_setenv("WALDBOOST_CACHE_DISABLE", "1", TRUE);
            g_setenv("WALDBOOST_TUNING_DISABLE", "1", TRUE);
            try {
                Engine engine(one_weak_classifier(), EngineConfig{});
            } catch (const Error& e) {
                std::fprintf(stderr, "%s\n", e.what());
                std::_Exit(e.kind() == ErrorKind::BadParameter ? 0 : 4);
            }
            std::_Exit(3);
        },
        ::testing::ExitedWithCode(0), "WALDBOOST_CL_FAULT=\"buffer-create \" is not valid");
}

TEST(Selection, SplitsFallbackLists)
{
    using List = std::vector<std::string>;
    EXPECT_EQ(split_device_list("gpu,cpu"), (List{"gpu", "cpu"}));
    EXPECT_EQ(split_device_list(" gpu , 0:1 ,, NVIDIA H100 "), (List{"gpu", "0:1", "NVIDIA H100"}));
    EXPECT_EQ(split_device_list("cpu"), (List{"cpu"}));
    EXPECT_EQ(split_device_list(""), (List{"auto"}));
    EXPECT_EQ(split_device_list(" , "), (List{"auto"}));
}

/* --- the program cache ------------------------------------------------------ */

TEST_F(ProgramCache, MissThenHitAndTheCachedProgramRuns)
{
    BuildReport miss, hit;
    const cl::Program first = build(scale_source(), "", &miss);
    EXPECT_FALSE(miss.cache_hit);
    EXPECT_TRUE(miss.note.empty()) << miss.note;
    ASSERT_TRUE(g_file_test(miss.cache_path.c_str(), G_FILE_TEST_IS_REGULAR)) << miss.cache_path;
    EXPECT_EQ(miss.cache_path.rfind(dir_.path + "/", 0), 0u);

    const cl::Program second = build(scale_source(), "", &hit);
    EXPECT_TRUE(hit.cache_hit) << hit.note;
    EXPECT_EQ(hit.cache_path, miss.cache_path);
    expect_scale_works(second, 2);
    expect_scale_works(first, 2);

    std::printf("program cache on %s: miss %.1f ms, hit %.1f ms\n", selected_.info.device_name.c_str(),
                miss.milliseconds, hit.milliseconds);
    /* No temporary files left behind. */
    EXPECT_EQ(files_in(dir_.path).size(), 1u);
}

TEST_F(ProgramCache, DamagedEntriesAreRebuiltFromSourceAndReplaced)
{
    BuildReport report;
    build(scale_source(), "", &report);
    const std::string path = report.cache_path;
    const std::string good = read_file(path);
    ASSERT_GT(good.size(), kHeaderSize);
    const std::string payload = good.substr(kHeaderSize);

    std::string wrong_checksum = good;
    wrong_checksum[kChecksumOffset] = wrong_checksum[kChecksumOffset] == '0' ? '1' : '0';
    std::string payload_flipped = good;
    payload_flipped[kHeaderSize + payload.size() / 2] ^= 0x5a;
    std::string header_flipped = good;
    header_flipped[3] ^= 0x01;
    std::string length_wrong = good;
    length_wrong[16] ^= 0x01;
    /* The right header, garbage of the same length: the checksum catches it. */
    const std::string garbage_payload = good.substr(0, kHeaderSize) + std::string(payload.size(), '\x42');
    /* Garbage with a matching checksum: reaches the driver, which must refuse it. */
    const std::string garbage(payload.size(), '\x42');
    gchar* garbage_sum =
        g_compute_checksum_for_data(G_CHECKSUM_SHA256, reinterpret_cast<const guchar*>(garbage.data()), garbage.size());
    const std::string garbage_checksummed = good.substr(0, kChecksumOffset) + garbage_sum + garbage;
    g_free(garbage_sum);

    const std::vector<std::pair<std::string, std::string>> damages = {
        {"truncated to 10 bytes", good.substr(0, 10)},
        {"truncated payload", good.substr(0, good.size() - 1)},
        {"empty", ""},
        {"trailing bytes", good + "x"},
        {"wrong checksum", wrong_checksum},
        {"payload byte flipped", payload_flipped},
        {"magic flipped", header_flipped},
        {"length flipped", length_wrong},
        {"garbage payload, old checksum", garbage_payload},
        {"garbage payload, its own checksum", garbage_checksummed},
    };
    for (const auto& [what, content] : damages) {
        SCOPED_TRACE(what);
        write_file(path, content);
        BuildReport rebuilt;
        const cl::Program program = build(scale_source(), "", &rebuilt);
        EXPECT_FALSE(rebuilt.cache_hit);
        EXPECT_NE(rebuilt.note.find("unusable"), std::string::npos) << rebuilt.note;
        expect_scale_works(program, 2);

        BuildReport again;
        build(scale_source(), "", &again);
        EXPECT_TRUE(again.cache_hit) << again.note;
    }
}

TEST_F(ProgramCache, EntryForAnotherKeyIsNotUsed)
{
    BuildReport two, three;
    build(scale_source(), "-DFACTOR=2", &two);
    build(scale_source(), "-DFACTOR=3", &three);
    ASSERT_NE(two.cache_path, three.cache_path);
    /* An entry copied under another name (another device, source or options). */
    write_file(three.cache_path, read_file(two.cache_path));
    BuildReport rebuilt;
    const cl::Program program = build(scale_source(), "-DFACTOR=3", &rebuilt);
    EXPECT_FALSE(rebuilt.cache_hit);
    EXPECT_NE(rebuilt.note.find("another key"), std::string::npos) << rebuilt.note;
    expect_scale_works(program, 3);
}

TEST_F(ProgramCache, OptionsArePartOfTheKey)
{
    BuildReport two, three, two_again;
    const cl::Program p2 = build(scale_source(), "-DFACTOR=2", &two);
    const cl::Program p3 = build(scale_source(), "-DFACTOR=3", &three);
    EXPECT_FALSE(three.cache_hit);
    EXPECT_NE(two.cache_path, three.cache_path);
    const cl::Program p2_cached = build(scale_source(), "-DFACTOR=2", &two_again);
    EXPECT_TRUE(two_again.cache_hit);
    expect_scale_works(p2, 2);
    expect_scale_works(p3, 3);
    expect_scale_works(p2_cached, 2);
    EXPECT_EQ(files_in(dir_.path).size(), 2u);
}

TEST_F(ProgramCache, BuildErrorNamesTheDeviceAndTheCompilerMessage)
{
    const std::string source =
        "/* " + nonce() + " */\n__kernel void broken(__global int* out) { out[0] = undeclared_thing; }\n";
    const std::string message = error_of([&] {
        build(source, "", nullptr);
    });
    EXPECT_NE(message.find("OpenCL program build failed on " + selected_.info.device_name + ":"), std::string::npos)
        << message;
    EXPECT_NE(message.find("undeclared_thing"), std::string::npos) << message;
    EXPECT_TRUE(files_in(dir_.path).empty());
    EXPECT_EQ(kind_of([&] {
                  build(source, "", nullptr);
              }),
              to_string(ErrorKind::KernelBuild));
}

TEST_F(ProgramCache, UnwritableDirectoryIsANoteNotAnError)
{
    /* A directory below a regular file cannot be created, even by root. */
    const std::string file = dir_.path + "/not-a-directory";
    write_file(file, "x");
    settings_.directory = file + "/kernels";
    BuildReport report;
    const cl::Program program = build(scale_source(), "", &report);
    EXPECT_FALSE(report.cache_hit);
    EXPECT_NE(report.note.find("not cached: cannot create"), std::string::npos) << report.note;
    expect_scale_works(program, 2);
}

TEST_F(ProgramCache, DisabledCacheReadsAndWritesNothing)
{
    settings_.enabled = false;
    BuildReport first, second;
    build(scale_source(), "", &first);
    const cl::Program program = build(scale_source(), "", &second);
    EXPECT_FALSE(second.cache_hit);
    EXPECT_TRUE(second.cache_path.empty());
    EXPECT_NE(second.note.find("disabled"), std::string::npos);
    EXPECT_TRUE(files_in(dir_.path).empty());
    expect_scale_works(program, 2);
}

TEST_F(ProgramCache, ConcurrentBuildsLeaveOneGoodEntry)
{
    const std::string source = scale_source() + "/* concurrent */\n";
    std::vector<std::thread> threads;
    std::vector<std::string> failures(3);
    for (size_t t = 0; t < failures.size(); ++t)
        threads.emplace_back([&, t] {
            try {
                build(source, "", nullptr);
            } catch (const std::exception& e) {
                failures[t] = e.what();
            }
        });
    for (auto& thread : threads)
        thread.join();
    for (const std::string& failure : failures)
        EXPECT_TRUE(failure.empty()) << failure;
    EXPECT_EQ(files_in(dir_.path).size(), 1u);
    BuildReport report;
    expect_scale_works(build(source, "", &report), 2);
    EXPECT_TRUE(report.cache_hit) << report.note;
}

TEST(CacheSettings, FromEnvironment)
{
    g_setenv("WALDBOOST_CACHE_DIR", "/some/where", TRUE);
    g_unsetenv("WALDBOOST_CACHE_DISABLE");
    CacheSettings s = CacheSettings::from_environment();
    EXPECT_TRUE(s.enabled);
    EXPECT_EQ(s.directory, "/some/where");

    g_setenv("WALDBOOST_CACHE_DISABLE", "1", TRUE);
    EXPECT_FALSE(CacheSettings::from_environment().enabled);

    g_unsetenv("WALDBOOST_CACHE_DIR");
    g_unsetenv("WALDBOOST_CACHE_DISABLE");
    s = CacheSettings::from_environment();
    EXPECT_TRUE(s.enabled);
    EXPECT_EQ(s.directory, std::string(g_get_user_cache_dir()) + "/waldboost-gst/kernels");
}

/* --- kernel sources ------------------------------------------------------- */

TEST(KernelSource, EmbeddedUnlessKernelDirIsSet)
{
    g_unsetenv("WALDBOOST_KERNEL_DIR");
    EXPECT_EQ(kernel_source("embedded text", "detect.cl"), "embedded text");

    TempDir dir;
    write_file(dir.path + "/detect.cl", "from the file");
    g_setenv("WALDBOOST_KERNEL_DIR", dir.path.c_str(), TRUE);
    EXPECT_EQ(kernel_source("embedded text", "detect.cl"), "from the file");

    const std::string message = error_of([] {
        kernel_source("embedded text", "missing.cl");
    });
    EXPECT_NE(message.find(dir.path + "/missing.cl"), std::string::npos) << message;
    EXPECT_EQ(kind_of([] {
                  kernel_source("embedded text", "missing.cl");
              }),
              to_string(ErrorKind::Io));
    g_unsetenv("WALDBOOST_KERNEL_DIR");
}
