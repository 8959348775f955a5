#include "support/certs.hpp"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <httplib.h>

namespace mesos::test {

TestCertificates::TestCertificates() {
  char dir[] = "/tmp/mesos-tls-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    error_ = "cannot make a scratch directory";
    return;
  }
  dir_ = dir;
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) {
    error_ = "the openssl command-line tool is not installed";
    return;
  }
  for (const char* ca : {"ca", "other-ca"}) {
    std::string name(ca);
    if (!run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
             "-keyout " + name + ".key -out " + name + ".crt -days 3 -subj /CN=" + name +
             " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,cRLSign")) {
      return;
    }
  }
  // For the expired certificate: `openssl ca` takes explicit dates.
  std::ofstream config(dir_ + "/ca.cnf");
  config << "[ca]\ndefault_ca=test\n[test]\ndir=" << dir_ << "\ndatabase=" << dir_
         << "/index.txt\nnew_certs_dir=" << dir_ << "\nserial=" << dir_
         << "/serial\ndefault_md=sha256\npolicy=any\ncopy_extensions=copy\nunique_subject=no\n"
         << "[any]\ncommonName=supplied\n";
  config.close();
  run("touch index.txt && echo 01 > serial");
}

TestCertificates::~TestCertificates() {
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

bool TestCertificates::run(const std::string& command) {
  std::string full = "cd '" + dir_ + "' && (" + command + ") >>openssl.log 2>&1";
  if (std::system(full.c_str()) == 0) return true;
  std::ifstream log(dir_ + "/openssl.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  error_ += "'" + command + "' failed: " + text;
  return false;
}

bool TestCertificates::make(const std::string& name, const std::string& san, bool expired,
                            bool otherCa) {
  std::string ca = otherCa ? "other-ca" : "ca";
  {
    std::ofstream ext(dir_ + "/" + name + ".ext");
    ext << "subjectAltName=" << san << "\n";
  }
  if (!run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name +
           ".key -out " + name + ".csr -subj /CN=" + name)) {
    return false;
  }
  if (expired) {
    return run("openssl ca -batch -config ca.cnf -cert " + ca + ".crt -keyfile " + ca +
               ".key -in " + name + ".csr -out " + name + ".crt -notext -extfile " + name +
               ".ext -startdate 20200101000000Z -enddate 20200102000000Z");
  }
  return run("openssl x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca +
             ".key -CAcreateserial -out " + name + ".crt -days 3 -extfile " + name + ".ext");
}

process::TlsOptions TestCertificates::options(const std::string& name) const {
  process::TlsOptions options;
  options.enabled = true;
  options.certFile = cert(name);
  options.keyFile = key(name);
  options.caFile = caFile();
  options.verifyServerCert = true;
  options.requireClientCert = true;
  options.verifyIpAdd = true;
  options.ciphers = process::TlsOptions::kDefaultCiphers;
  return options;
}

int httpsGet(const process::Address& address, const std::string& path, const std::string& caFile,
             const std::string& cert, const std::string& key, std::string* body,
             std::string* error) {
  httplib::SSLClient client(address.ipString(), address.port, cert, key);
  client.set_ca_cert_path(caFile.c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(10);
  client.set_read_timeout(10);
  auto answer = client.Get(path.c_str());
  if (!answer) {
    if (error != nullptr) *error = httplib::to_string(answer.error());
    return 0;
  }
  if (body != nullptr) *body = answer->body;
  return answer->status;
}

int httpsPost(const process::Address& address, const std::string& path,
              const std::vector<std::pair<std::string, std::string>>& headers,
              const std::string& body, const std::string& caFile, const std::string& cert,
              const std::string& key, std::string* answer) {
  httplib::SSLClient client(address.ipString(), address.port, cert, key);
  client.set_ca_cert_path(caFile.c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(10);
  client.set_read_timeout(10);
  httplib::Headers list;
  for (const auto& [name, value] : headers) list.emplace(name, value);
  auto result = client.Post(path.c_str(), list, body, "application/x-protobuf");
  if (!result) return 0;
  if (answer != nullptr) *answer = result->body;
  return result->status;
}

}  // namespace mesos::test
