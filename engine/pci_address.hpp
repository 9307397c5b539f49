// PCI addresses as the logs print them, reduced to one comparable form.
//
// Contract. `bus_id_of_pci(text)` turns any of the spellings one GPU's address takes in logs (the driver's
// "PCI:0000:17:00", nvidia-smi's "00000000:17:00.0", NCCL's busId "17000") into the same string: the lowercase hex
// digits of domain, bus, device and function with the leading zeros dropped ("17000" for all three). A missing
// function counts as 0. nullopt when the text holds no hex digit. Never throws.
#pragma once

#include <cctype>
#include <optional>
#include <string>

namespace denpex {

inline std::optional<std::string> bus_id_of_pci(std::string pci) {
    if (pci.rfind("PCI:", 0) == 0) pci = pci.substr(4);
    std::string digits;
    const bool has_function = pci.find('.') != std::string::npos;
    for (char c : pci)
        if (std::isxdigit(static_cast<unsigned char>(c))) digits += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (digits.empty()) return std::nullopt;
    if (!has_function) digits += '0';
    const std::size_t nz = digits.find_first_not_of('0');
    return nz == std::string::npos ? std::string("0") : digits.substr(nz);
}

}  // namespace denpex
