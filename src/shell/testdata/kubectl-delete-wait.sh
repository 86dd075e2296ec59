# kubectl delete waits until the object is gone: an object made again under the same name (the
# root CA publisher's kube-root-ca.crt) has another UID, so the wait ends at once
$ kubectl get cm kube-root-ca.crt -o jsonpath='{.metadata.uid}{"\n"}'
$ kubectl delete cm kube-root-ca.crt
$ kubectl get cm kube-root-ca.crt -o jsonpath='{.metadata.uid}{"\n"}'
$ kubectl get cm
$ kubectl create namespace team && kubectl get cm -n team
