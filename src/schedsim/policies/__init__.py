"""Scheduling policies: one small class per policy behind the engine's ``Policy`` protocol.

Find a policy by name with :func:`schedsim.policies.registry.make_policy`; list them
with :func:`schedsim.policies.registry.all_policies`.
"""
